"""Starter configurations: proposed roles, hierarchy tables and the TOML writer."""

from __future__ import annotations

import tomllib
from datetime import datetime

import polars as pl
import pytest

from anonkit.core.hierarchy_builders import build_hierarchy
from anonkit.exceptions import ParameterError
from anonkit.safety.profile import profile_table
from anonkit.safety.starter import _nice_widths, propose_roles, starter_config, toml_string


def test_widths_follow_the_range() -> None:
    assert _nice_widths(17, 90, True) == [5, 10, 20]
    assert _nice_widths(1, 16, True) == [2, 4]
    assert _nice_widths(0, 99999, True) == [5000, 10000, 20000, 40000]
    assert _nice_widths(0.0, 0.37, False) == [0.02, 0.04, 0.08, 0.16]
    assert _nice_widths(3, 3, True) is None


@pytest.mark.parametrize("text", ['a "b"', "back\\slash", "tab\there", "new\nline", "\x01", "é €"])
def test_toml_strings_round_trip(text: str) -> None:
    assert tomllib.loads(f"v = {toml_string(text)}")["v"] == text


def test_odd_column_names_round_trip() -> None:
    names = ['zip "code"', "age in years", "sex\tof", "weird\\name", "dob"]
    n = 40
    frame = pl.DataFrame(
        {
            names[0]: [f"0{2100 + i % 5}" for i in range(n)],
            names[1]: [str(20 + i % 9) for i in range(n)],
            names[2]: ["F", "M"] * (n // 2),
            names[3]: ["x", "y"] * (n // 2),
            names[4]: [f"2020-0{1 + i % 9}-1{i % 10}" for i in range(n)],
        }
    )
    starter = starter_config(frame, input='in "x".csv', output="out.csv")
    config = tomllib.loads(starter.text)
    assert config["input"] == 'in "x".csv'
    listed = [c for key in ("quasi_identifiers", "identifying", "sensitive", "insensitive")
              for c in config["attributes"][key]]  # fmt: skip
    assert sorted(listed) == sorted(names)
    assert set(config["hierarchies"]) == set(config["attributes"]["quasi_identifiers"])
    assert config["hierarchies"][names[0]] == {"type": "masking"}
    assert config["hierarchies"]["dob"] == {"type": "dates", "levels": ["month", "year"]}
    for column, spec in config["hierarchies"].items():
        build_hierarchy(spec, frame.get_column(column).unique().to_list(), name=column)


def test_a_column_determining_a_qi_becomes_one() -> None:
    """A column the rules would keep (here sensitive by its name) that gives a
    quasi-identifier's values back is generalized too."""
    n = 200
    frame = pl.DataFrame(
        {
            "education": [("HS", "BA", "MA", "PhD")[i % 4] for i in range(n)],
            "income": [("12", "16", "18", "21")[i % 4] for i in range(n)],
            "diagnosis": [str(i % 7) for i in range(n)],
        }
    )
    starter = starter_config(frame, input="x.csv")
    assert starter.role("education") == "quasi_identifier"
    assert starter.role("income") == "quasi_identifier"
    assert starter.role("diagnosis") == "sensitive"
    why = next(p.why for p in starter.proposals if p.column == "income")
    assert "determines the quasi-identifier 'education'" in why


def test_a_column_no_rule_knows_is_generalized_not_published() -> None:
    """Fail closed: a column the rules cannot place (Adult's occupation, hours per week)
    is proposed as a quasi-identifier, with a hierarchy, not kept as it stands: kept, it
    would single out most records beside the generalized ones (on Adult, 12,842 of
    32,561 records unique on the eight proposed quasi-identifiers and the five columns
    it would have kept)."""
    n = 60
    frame = pl.DataFrame(
        {
            "occupation": [("Sales", "Tech", "Admin")[i % 3] for i in range(n)],
            "hours": [str(20 + i % 20) for i in range(n)],
            "comment": [None] * n,
        },
        schema={"occupation": pl.String, "hours": pl.String, "comment": pl.String},
    )
    starter = starter_config(frame, input="x.csv")
    assert starter.role("occupation") == "quasi_identifier"
    assert starter.role("hours") == "quasi_identifier"
    assert starter.role("comment") == "insensitive"  # no values at all: nothing to leak
    why = {p.column: p.why for p in starter.proposals}
    assert why["occupation"].startswith("no rule matched: generalized to be safe")
    hours = next(p for p in starter.proposals if p.column == "hours")
    assert hours.hierarchy is not None and hours.hierarchy["type"] == "intervals"


def test_dates_in_another_format_and_a_fallback() -> None:
    frame = pl.DataFrame({"birth": ["05/03/1980", "31/12/1979"] * 10, "region": ["N", "S"] * 10})
    starter = starter_config(frame, input="x.csv")
    birth = next(p for p in starter.proposals if p.column == "birth")
    assert birth.hierarchy == {"type": "dates", "levels": ["month", "year"], "format": "%d/%m/%Y"}
    build_hierarchy(birth.hierarchy, frame.get_column("birth").to_list())
    region = next(p for p in starter.proposals if p.column == "region")
    assert region.hierarchy == {"type": "suppression"}
    assert "[read]" not in starter.text


def test_no_quasi_identifier_is_said() -> None:
    frame = pl.DataFrame({"diagnosis": ["a", "b"] * 5, "email": ["x@y.org"] * 10})
    starter = starter_config(frame, input="x.csv")
    assert "quasi_identifiers = []" in starter.text
    assert "name at least one" in starter.text
    tomllib.loads(starter.text)


def test_bad_privacy_settings() -> None:
    frame = pl.DataFrame({"age": ["1", "2"]})
    with pytest.raises(ParameterError):
        starter_config(frame, input="x.csv", k=0)
    with pytest.raises(ParameterError):
        starter_config(frame, input="x.csv", suppression_limit=2)


def test_dates_that_read_either_way_are_flagged() -> None:
    """01/02/1980 is 1 February or 2 January: when every date reads both ways, the
    proposal says so instead of choosing silently (the month level would group by day)."""
    ambiguous = pl.DataFrame({"birth": [f"0{d}/0{m}/1980" for d in range(1, 10) for m in (1, 2)]})
    starter = starter_config(ambiguous, input="x.csv")
    assert "%m/%d/%Y" in starter.text and "check" in starter.text
    clear = pl.DataFrame({"birth": [f"{d}/0{m}/1980" for d in range(13, 29) for m in (1, 2)]})
    assert "%m/%d/%Y" not in starter_config(clear, input="x.csv").text


def test_numbers_written_with_a_comma_are_named() -> None:
    """A ';' file from a German office writes 49,4: read as text, the weight column was
    proposed as near-unique text, removed, without a word about why it was not a
    number."""
    weights = [f"{50 + i // 3},{i % 10}" for i in range(60)]
    frame = pl.DataFrame({"Gewicht": weights, "Geschlecht": ["w", "m"] * 30})
    starter = starter_config(frame, input="x.csv")
    weight = next(p for p in starter.proposals if p.column == "Gewicht")
    assert "numbers written with a comma" in weight.why
    assert "numbers written with a comma" in starter.text
    sex = next(p for p in starter.proposals if p.column == "Geschlecht")
    assert "comma" not in sex.why
    words = pl.DataFrame({"note": ["a,b", "c,d"] * 30})  # commas, but not numbers
    assert "comma" not in starter_config(words, input="x.csv").proposals[0].why


@pytest.mark.parametrize(
    ("stamps", "fmt"),
    [
        (
            [f"2024-{m:02d}-{d:02d} {d:02d}:{m * 3:02d}" for m in (1, 2) for d in range(1, 21)],
            "%Y-%m-%d %H:%M",
        ),
        (
            [
                f"{d:02d}.{m:02d}.2024 {d - 12:02d}:{m * 3:02d}:07"
                for m in (1, 2)
                for d in range(13, 29)
            ],
            "%d.%m.%Y %H:%M:%S",
        ),
        (
            [f"2024-{m:02d}-{d:02d}T{d:02d}:{m * 3:02d}:07" for m in (1, 2) for d in range(1, 21)],
            "%Y-%m-%dT%H:%M:%S",
        ),
    ],
)
def test_timestamps_written_as_text_are_dates_generalized_to_the_day(
    stamps: list[str], fmt: str
) -> None:
    """A hospital's admission time ("2024-03-15 14:32") is a quasi-identifier: it was
    profiled as near-unique text and proposed for removal, with no word of it being a
    date."""
    frame = pl.DataFrame({"admitted": stamps, "sex": ["F", "M"] * (len(stamps) // 2)})
    starter = starter_config(frame, input="x.csv")
    admitted = next(p for p in starter.proposals if p.column == "admitted")
    assert admitted.role == "quasi_identifier"
    spec = {"type": "dates", "levels": ["day", "month", "year"], "format": fmt}
    assert admitted.hierarchy == spec
    first = build_hierarchy(spec, stamps, name="admitted").rows[0]
    day = datetime.strptime(stamps[0], fmt).date().isoformat()
    assert first == (stamps[0], day, day[:7], "2024", "*")
    assert "time -> day -> month -> year -> *" in starter.text


def test_a_timestamp_column_is_generalized_to_the_day_first() -> None:
    stamps = [datetime(2024, 1 + i % 12, 1 + i % 28, i % 24, i % 60) for i in range(40)]
    frame = pl.DataFrame({"admitted": stamps, "sex": ["F", "M"] * 20})
    admitted = next(
        p for p in starter_config(frame, input="x.csv").proposals if p.column == "admitted"
    )
    assert admitted.hierarchy == {"type": "dates", "levels": ["day", "month", "year"]}


def test_a_quasi_identifier_with_missing_cells_says_the_run_stops_on_them() -> None:
    """init proposed 'age' (18 of 300 cells missing, as --missing NA declared) with
    nothing said, and the run it set up stopped on the missing values."""
    n = 300
    frame = pl.DataFrame(
        {
            "age": [None if i % 17 == 0 else str(20 + i % 60) for i in range(n)],
            "sex": ["FM"[i % 2] for i in range(n)],
        }
    )
    starter = starter_config(frame, input="x.csv")
    why = next(p.why for p in starter.proposals if p.column == "age")
    assert starter.role("age") == "quasi_identifier"
    assert "18 missing cells stop the run" in why
    assert "missing" not in next(p.why for p in starter.proposals if p.column == "sex")


def test_spellings_that_differ_by_spaces_or_case_are_pointed_out() -> None:
    """' Paris' released as 'Paris' and 'paris' kept beside 'Paris' were said nowhere:
    the reason of the column says how many and what the run does, without a value."""
    frame = pl.DataFrame(
        {
            "city": ["Paris", " Paris", "paris", "Lyon"] * 10,
            "sex": ["F", "M"] * 20,
        }
    )
    starter = starter_config(frame, input="x.csv")
    why = next(p.why for p in starter.proposals if p.column == "city")
    assert "1 only by surrounding spaces (read as that one)" in why
    assert "1 only by case (kept apart)" in why
    assert "Paris" not in starter.text and "paris" not in starter.text
    assert "surrounding spaces" not in next(p.why for p in starter.proposals if p.column == "sex")


def test_values_that_print_alike_are_pointed_out() -> None:
    """'São' composed and with a combining tilde are two values that print alike: the
    release would show two classes with one label."""
    frame = pl.DataFrame({"city": ["S\u00e3o Paulo", "Sa\u0303o Paulo", "Rio"] * 10})
    assert profile_table(frame)["city"].encoded == 1
    why = starter_config(frame, input="x.csv").proposals[0].why
    assert "1 only by how an accent is encoded (look alike, kept apart)" in why


def test_dates_in_several_formats_are_pointed_out() -> None:
    """A column of '2024-03-05' beside '05/03/2024' (or a day that does not exist) is no
    date column, so it was proposed for suppression without a word about why."""
    mixed = pl.DataFrame({"visit": ["2024-03-05", "05/03/2024", "2024-03-06", "2023-02-29"] * 5})
    assert profile_table(mixed)["visit"].partly_dates == 3
    why = starter_config(mixed, input="x.csv").proposals[0].why
    assert "3 of its 4 values read as dates, but not all in one format" in why
    for values in (["2024-03-05", "2024-03-06"], ["red", "blue", "2024-03-05"]):
        frame = pl.DataFrame({"visit": values * 5})
        assert profile_table(frame)["visit"].partly_dates == 0


def test_free_text_is_removed_whatever_its_name() -> None:
    """Notes under the name 'diagnosis' (890 distinct in 6,000 records) were proposed
    sensitive and published as they stood, names and phone numbers in them."""
    names = ["Hugo Klein", "Ann Berg", "Lea Wolf", "Tom Roth"]
    notes = [
        f"{names[i % 4]} admitted with chest pain after {i % 97} days (phone 030 {i % 89})"
        for i in range(600)
    ]
    frame = pl.DataFrame(
        {
            "age": [str(20 + i % 50) for i in range(600)],
            "diagnosis": notes,
            "ward": [f"W{i % 3}" for i in range(600)],
        }
    )
    profile = profile_table(frame)
    assert profile["diagnosis"].free_text and not profile["ward"].free_text
    roles = {p.column: (p.role, p.why) for p in propose_roles(profile)}
    assert roles["diagnosis"][0] == "identifying" and "free text" in roles["diagnosis"][1]
    # categories of a few words are not free text
    labels = ["Malignant neoplasm of lung", "Acute bronchitis", "Essential hypertension"]
    short = pl.DataFrame({"diagnosis": [labels[i % 3] for i in range(600)]})
    assert not profile_table(short)["diagnosis"].free_text


def test_upper_case_and_entity_named_identifiers_are_removed() -> None:
    """An admissions export with PATIENTID and PATIENT (full names), several records per
    patient: init proposed both as quasi-identifiers ('no rule matched'), and with five
    records a patient every class was one patient, names published."""
    patients = [f"P{i:04d}" for i in range(40)]
    frame = pl.DataFrame(
        {
            "PATIENTID": [p for p in patients for _ in range(5)],
            "PATIENT": [f"Name {p}" for p in patients for _ in range(5)],
            "CustomerNo": [f"C{i}" for i in range(200)],
            "client": [f"c{i % 7}" for i in range(200)],
            "patient_type": ["in", "out"] * 100,
            "PAID": ["y", "n"] * 100,
        }
    )
    proposals = {p.column: p for p in propose_roles(profile_table(frame))}
    roles = {c: p.role for c, p in proposals.items()}
    assert "several records" in proposals["PATIENTID"].why  # 40 values over 200 records
    assert "several records" not in proposals["CustomerNo"].why
    for column in ("PATIENTID", "PATIENT", "CustomerNo", "client"):
        assert roles[column] == "identifying", column
    assert roles["patient_type"] != "identifying" and roles["PAID"] != "identifying"


def test_the_advice_on_missing_cells_says_an_empty_cell_stays_missing() -> None:
    """The reason advised leaving the token out of [read] missing, which cannot work for
    empty cells (always missing): a user followed it and got the same error."""
    frame = pl.DataFrame({"zip": ["101", None, "102", None] * 10, "age": list(range(40))})
    why = {p.column: p.why for p in propose_roles(profile_table(frame))}["zip"]
    assert "an empty cell is always missing" in why
