import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXProcessStatistics;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.criteria.RecursiveCLDiversity;
import org.deidentifier.arx.metric.Metric;

/**
 * ARX's side of benchmarks/vs_arx.py: the cells of benchmarks/anonymize_adult.py, run on
 * request so that the driver can alternate ARX and anonkit batch by batch.
 *
 * Usage: java ArxCells DATA_DIR [BIG_CSV]
 *   DATA_DIR holds adult.csv and adult_hierarchy_*.csv; BIG_CSV, Adult written 33 times
 *   over, adds the end-to-end cell, which reads the file and the hierarchy files in
 *   every call (the reading is timed).
 *
 * Protocol (one line each way):
 *   prints  "cells NAME\tNAME..."   once loaded
 *   reads   "run I N W"             runs cell I W times untimed, then N times timed
 *                                   (each call: anonymize + getOutput)
 *   prints  "times NS NS ...\tCHECKED\tSUPPRESSED\tATTR=LEVEL,..."
 *   reads   "quit"
 */
public class ArxCells {

    static final String SENSITIVE = "occupation";

    static String[] header;
    static List<String[]> rows;
    static final Map<String, Hierarchy> hierarchies = new LinkedHashMap<>();

    /** One cell: which columns are quasi-identifiers, its models, metric and limit. */
    record Cell(String name, boolean allQuasi, Supplier<List<PrivacyCriterion>> models,
                Supplier<Metric<?>> metric, double suppression, String file) {}

    static String dataDir;

    static List<Cell> cells(String big) {
        List<Cell> out = new ArrayList<>();
        for (double supp : new double[] {0.0, 0.04}) {
            for (int k : new int[] {2, 5, 10, 50, 100}) {
                String name = String.format("9 QIs loss k=%d %d%%", k, Math.round(supp * 100));
                out.add(new Cell(name, true, () -> List.of(new KAnonymity(k)),
                                 Metric::createLossMetric, supp, null));
            }
        }
        Map<String, Supplier<PrivacyCriterion>> models = new LinkedHashMap<>();
        models.put("distinct l=3", () -> new DistinctLDiversity(SENSITIVE, 3));
        models.put("entropy l=3", () -> new EntropyLDiversity(SENSITIVE, 3));
        models.put("recursive (4,3)", () -> new RecursiveCLDiversity(SENSITIVE, 4, 3));
        models.put("equal t=0.2", () -> new EqualDistanceTCloseness(SENSITIVE, 0.2));
        models.put("hierarchical t=0.2",
                   () -> new HierarchicalDistanceTCloseness(SENSITIVE, 0.2, hierarchies.get(SENSITIVE)));
        String[][] which = {
            {"distinct l=3", "0"}, {"entropy l=3", "0"}, {"recursive (4,3)", "0"},
            {"equal t=0.2", "0"}, {"hierarchical t=0.2", "0"},
            {"entropy l=3", "5"}, {"recursive (4,3)", "5"},
        };
        for (String[] w : which) {
            Supplier<PrivacyCriterion> model = models.get(w[0]);
            out.add(new Cell("8 QIs k=5 height " + w[0] + " " + w[1] + "%", false,
                             () -> List.of(new KAnonymity(5), model.get()),
                             Metric::createHeightMetric, Integer.parseInt(w[1]) / 100.0, null));
        }
        if (big != null) {
            out.add(new Cell("Adult x33 (995,346 rows) from CSV k=5 4%", true,
                             () -> List.of(new KAnonymity(5)), Metric::createLossMetric, 0.04, big));
        }
        return out;
    }

    static Data data(Cell cell) throws IOException {
        Data data;
        if (cell.file() != null) {  // read in the call, with its hierarchy files
            data = Data.create(cell.file(), StandardCharsets.UTF_8, ';');
        } else {
            Data.DefaultData held = Data.create();
            held.add(header);
            for (String[] r : rows) held.add(r);
            data = held;
        }
        for (String col : header) {
            if (cell.file() != null) {
                String path = Paths.get(dataDir, "adult_hierarchy_" + col + ".csv").toString();
                data.getDefinition().setAttributeType(
                    col, Hierarchy.create(path, StandardCharsets.UTF_8, ';'));
            } else if (cell.allQuasi() || !col.equals(SENSITIVE)) {
                data.getDefinition().setAttributeType(col, hierarchies.get(col));
            } else {
                data.getDefinition().setAttributeType(col, AttributeType.SENSITIVE_ATTRIBUTE);
            }
        }
        return data;
    }

    /** Runs a cell once; returns the nanoseconds of anonymize + getOutput (and, for the
     *  end-to-end cell, of reading the file and the hierarchies). */
    static long run(Cell cell, ARXResult[] last, DataHandle[] lastOut) throws IOException {
        long start = System.nanoTime();
        Data data = data(cell);
        ARXConfiguration config = ARXConfiguration.create();
        for (PrivacyCriterion c : cell.models().get()) config.addPrivacyModel(c);
        config.setQualityModel(cell.metric().get());
        config.setSuppressionLimit(cell.suppression());
        ARXAnonymizer anonymizer = new ARXAnonymizer();
        long t0 = cell.file() != null ? start : System.nanoTime();
        ARXResult result = anonymizer.anonymize(data, config);
        DataHandle out = result.getOutput();
        long t1 = System.nanoTime();
        last[0] = result;
        lastOut[0] = out;
        return t1 - t0;
    }

    static String describe(ARXResult result, DataHandle out) {
        ARXProcessStatistics st = result.getProcessStatistics();
        String checked = st == null ? "n/a" : String.valueOf(st.getTransformationsChecked());
        int suppressed = 0;
        if (out != null) {
            for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) suppressed++;
        }
        StringBuilder levels = new StringBuilder();
        ARXNode opt = result.getGlobalOptimum();
        if (opt != null) {
            String[] names = opt.getQuasiIdentifyingAttributes();
            int[] t = opt.getTransformation();
            for (int i = 0; i < names.length; i++) {
                if (i > 0) levels.append(',');
                levels.append(names[i]).append('=').append(t[i]);
            }
        }
        return checked + "\t" + suppressed + "\t" + levels;
    }

    static void load(String dir) throws IOException {
        rows = new ArrayList<>();
        try (BufferedReader br = Files.newBufferedReader(Paths.get(dir, "adult.csv"), StandardCharsets.UTF_8)) {
            header = br.readLine().split(";", -1);
            String line;
            while ((line = br.readLine()) != null) {
                if (line.isEmpty()) continue;
                String[] r = line.split(";", -1);
                if (r.length != header.length) throw new IOException("bad row in adult.csv");
                rows.add(r);
            }
        }
        for (String col : header) {
            String path = Paths.get(dir, "adult_hierarchy_" + col + ".csv").toString();
            hierarchies.put(col, Hierarchy.create(path, StandardCharsets.UTF_8, ';'));
        }
    }

    public static void main(String[] args) throws Exception {
        dataDir = args[0];
        load(args[0]);
        List<Cell> cells = cells(args.length > 1 ? args[1] : null);
        List<String> names = new ArrayList<>();
        for (Cell c : cells) names.add(c.name());
        System.out.println("cells " + String.join("\t", names));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            if (w[0].equals("quit")) break;
            Cell cell = cells.get(Integer.parseInt(w[1]));
            int n = Integer.parseInt(w[2]);
            int untimed = w.length > 3 ? Integer.parseInt(w[3]) : 0;
            ARXResult[] last = new ARXResult[1];
            DataHandle[] lastOut = new DataHandle[1];
            for (int i = 0; i < untimed; i++) run(cell, last, lastOut);
            StringBuilder times = new StringBuilder("times");
            for (int i = 0; i < n; i++) times.append(' ').append(run(cell, last, lastOut));
            System.out.println(times + "\t" + describe(last[0], lastOut[0]));
            System.out.flush();
        }
    }
}
