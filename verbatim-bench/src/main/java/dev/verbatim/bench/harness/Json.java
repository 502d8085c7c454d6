package dev.verbatim.bench.harness;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.DoubleFunction;

/**
 * The JSON lines of {@code verbatim bench SUITE --json}: one object per line, its fields in the order
 * they are added, always starting with {@code "suite"}. Strings are escaped ({@code "}, {@code \},
 * control characters); numbers are written as the caller formats them ({@link #decimals}: fixed
 * decimals, {@code null} for NaN and infinities). Not thread-safe.
 */
public final class Json {
    private final StringJoiner fields = new StringJoiner(",", "{", "}");

    private Json(String suite) {
        string("suite", suite);
    }

    /** A line of suite {@code suite}: {@code {"suite":suite, ...}}. */
    public static Json line(String suite) {
        return new Json(suite);
    }

    /** {@code "key":"value"}, escaped. */
    public Json string(String key, String value) {
        return raw(key, quote(value));
    }

    /** {@code "key":json}, with {@code json} already JSON (a number, {@code null}, {@code true}, an object). */
    public Json raw(String key, String json) {
        fields.add(quote(key) + ":" + json);
        return this;
    }

    /** {@code "key":{name: format(value), ...}} in the map's order. */
    public Json numbers(String key, Map<String, Double> values, DoubleFunction<String> format) {
        StringJoiner o = new StringJoiner(",", "{", "}");
        values.forEach((k, v) -> o.add(quote(k) + ":" + format.apply(v)));
        return raw(key, o.toString());
    }

    /** {@code "key":{name: "text", ...}} in the map's order. */
    public Json strings(String key, Map<String, String> values) {
        StringJoiner o = new StringJoiner(",", "{", "}");
        values.forEach((k, v) -> o.add(quote(k) + ":" + quote(v)));
        return raw(key, o.toString());
    }

    /** {@code "key":["text", ...]}. */
    public Json array(String key, List<String> values) {
        StringJoiner a = new StringJoiner(",", "[", "]");
        values.forEach(v -> a.add(quote(v)));
        return raw(key, a.toString());
    }

    @Override
    public String toString() {
        return fields.toString();
    }

    /** A number format of {@code n} fixed decimals (a dot, whatever the locale); {@code null} where not finite. */
    public static DoubleFunction<String> decimals(int n) {
        String f = "%." + n + "f";
        return v -> Double.isFinite(v) ? String.format(Locale.ROOT, f, v) : "null";
    }

    /** {@code s} as a JSON string: quoted, with {@code "}, {@code \} and control characters escaped. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
