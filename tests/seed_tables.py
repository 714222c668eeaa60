"""Small tables from the seed documents, and others shared by the test modules (tests/ is
on ``sys.path``)."""

from __future__ import annotations

#: The 13-record hospital table of seed document 001: (Zip, Age, Nationality, Disease),
#: Disease being the sensitive attribute.
HOSPITAL = [
    ("13053", "28", "Russian", "Heart"), ("13068", "29", "American", "Heart"),
    ("13068", "21", "Japanese", "Viral"), ("13053", "23", "American", "Viral"),
    ("14853", "50", "Indian", "Cancer"), ("14853", "55", "Russian", "Heart"),
    ("14850", "47", "American", "Viral"), ("14850", "59", "American", "Viral"),
    ("13053", "31", "American", "Cancer"), ("13053", "37", "Indian", "Cancer"),
    ("13068", "36", "Japanese", "Cancer"), ("13068", "32", "American", "Cancer"),
    ("13068", "33", "Chinese", "Cancer"),
]  # fmt: skip
#: Its 4-anonymous release as printed in the seed, row by row (Zip, Age, Nationality).
HOSPITAL_RELEASE = (
    [("130**", "<30", "Any")] * 4
    + [("1485*", ">40", "Any")] * 4
    + [("130**", "[30,40)", "Any")] * 5
)


def population_sample(n: int = 60) -> list[dict[str, object]]:
    """``n`` records (id, age, sex, zip, disease) whose population the tests of k-map and
    the population table make as several copies of them."""
    return [
        {"id": i, "age": 20 + (i * 7) % 50, "sex": ("male", "female")[i % 2],
         "zip": f"130{i % 5}{i % 3}", "disease": ("flu", "cold", "hiv")[i % 3]}
        for i in range(n)
    ]  # fmt: skip
