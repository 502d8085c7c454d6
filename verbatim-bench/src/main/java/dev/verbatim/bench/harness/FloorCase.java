package dev.verbatim.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of a table and one JSON case of a suite measured against a floor (transport, rpc): a
 * figure per contender, each measuring side's CPU share, and each contender's ratio to the floor.
 *
 * @param name the JSON case name ({@code shm/rtt-8})
 * @param label the row's label in a table
 * @param paired the ratios to the floor measured round by round ({@link Stats#pairedRatio}), or null
 */
public record FloorCase(String name, String label, String unit, Map<String, Double> results, Map<String, Double> cpu,
                        Map<String, Double> paired) {
    /** The floor's result key: the bare transport, what any contender of the medium must pay. */
    public static final String FLOOR = "floor";

    public FloorCase(String name, String label, String unit, Map<String, Double> results, Map<String, Double> cpu) {
        this(name, label, unit, results, cpu, null);
    }

    /** Each contender's ratio to the floor: paired by round when known, else figure over figure (empty without a floor). */
    public Map<String, Double> ratios() {
        if (paired != null) {
            return paired;
        }
        Map<String, Double> m = new LinkedHashMap<>();
        Double f = results.get(FLOOR);
        if (f != null && f != 0) {
            results.forEach((k, v) -> {
                if (!k.equals(FLOOR)) {
                    m.put(k, v / f);
                }
            });
        }
        return m;
    }

    /**
     * This case as a JSON line: {@code {"suite":..,"case":..,"unit":..,"results":{..},"ratios":{..},
     * "cpu":{..},"mode":..}}, {@code cpu} left out when empty; figures with 3 decimals.
     */
    public String jsonLine(String suite, String mode) {
        Json j = Json.line(suite).string("case", name).string("unit", unit)
                .numbers("results", results, Json.decimals(3)).numbers("ratios", ratios(), Json.decimals(3));
        if (!cpu.isEmpty()) {
            j.numbers("cpu", cpu, Json.decimals(3));
        }
        return j.string("mode", mode).toString();
    }
}
