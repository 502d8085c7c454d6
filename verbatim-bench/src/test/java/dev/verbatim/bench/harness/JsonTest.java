package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The JSON lines of {@code --json}: keys in order, numbers as formatted, strings escaped. */
class JsonTest {

    private static Map<String, Double> map(Object... kv) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).doubleValue());
        }
        return m;
    }

    @Test
    void aFloorCaseLineHasTheSuitesKeysInOrder() {
        FloorCase c = new FloorCase("shm/rtt-8", "p50", "ns", map("floor", 100, "verbatim", 150.5), map("floor", 0.95),
                map("verbatim", 1.5));
        assertEquals("{\"suite\":\"transport\",\"case\":\"shm/rtt-8\",\"unit\":\"ns\",\"results\":{\"floor\":100.000,"
                + "\"verbatim\":150.500},\"ratios\":{\"verbatim\":1.500},\"cpu\":{\"floor\":0.950},\"mode\":\"quick\"}",
                c.jsonLine("transport", "quick"));
    }

    @Test
    void aFloorCaseWithoutCpuSharesLeavesTheKeyOut() {
        FloorCase c = new FloorCase("shm/per-byte", "per-byte", "ns/byte", map("floor", 0.25, "buffer", 0.5), Map.of());
        assertEquals("{\"suite\":\"transport\",\"case\":\"shm/per-byte\",\"unit\":\"ns/byte\",\"results\":{\"floor\":0.250,"
                + "\"buffer\":0.500},\"ratios\":{\"buffer\":2.000},\"mode\":\"full\"}", c.jsonLine("transport", "full"));
    }

    @Test
    void aFigureThatIsNotANumberIsNull() {
        assertEquals("{\"suite\":\"rpc\",\"results\":{\"a\":null,\"b\":null,\"c\":1.0}}", Json.line("rpc")
                .numbers("results", map("a", Double.NaN, "b", Double.POSITIVE_INFINITY, "c", 1), Json.decimals(1)).toString());
    }

    @Test
    void stringsAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", Json.quote("a\"b\\c\nd\u0001"));
        assertEquals("{\"suite\":\"file\",\"unstable\":[\"x\\\"\"],\"remarks\":{\"c-mmap\":\"no \\\"cc\\\"\"}}",
                Json.line("file").array("unstable", List.of("x\"")).strings("remarks", Map.of("c-mmap", "no \"cc\""))
                        .toString());
    }

    @Test
    void numbersUseADotWhateverTheLocale() {
        java.util.Locale saved = java.util.Locale.getDefault();
        try {
            java.util.Locale.setDefault(java.util.Locale.GERMANY);
            assertEquals("1.2346", Json.decimals(4).apply(1.23456));
        } finally {
            java.util.Locale.setDefault(saved);
        }
    }
}
