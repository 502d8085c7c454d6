package dev.verbatim.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Checks the test vectors of docs/wire-format.md against the implementation, both ways. */
class FingerprintVectorsTest {
    record Point(int x, int y) {}
    static final class Node { int value; Node next; }
    enum Color { RED, GREEN, BLUE }
    sealed interface Shape permits Circle, Square {}
    record Circle(double r) implements Shape {}
    record Square(double side) implements Shape {}
    record Drawing(List<Shape> shapes, Point origin, Color color, String title, byte[] thumbnail, Long id) {}
    sealed interface Expr permits Lit, Add {}
    record Lit(int v) implements Expr {}
    record Add(Expr l, Expr r) implements Expr {}

    interface PointView { int y(); int x(); }
    enum Side { BUY, SELL }
    record Trade(long qty, Side side, String symbol, java.time.Instant at, java.util.UUID id, java.math.BigDecimal price) {}
    record Profile(String name, java.util.Map<String, String> attrs, java.util.Set<String> tags, java.util.Optional<Point> home,
                   java.time.LocalDate born, java.util.Collection<Long> ids) {}

    public interface Customer extends ByReference { String name(); }
    record Order(String id, Customer customer, List<Customer> others) {}

    private static final Map<String, Class<?>> JAVA = Map.ofEntries(
            Map.entry("String", String.class), Map.entry("byte[]", byte[].class), Map.entry("Integer", Integer.class),
            Map.entry("Point", Point.class), Map.entry("Node", Node.class), Map.entry("Circle", Circle.class),
            Map.entry("Shape", Shape.class), Map.entry("Drawing", Drawing.class), Map.entry("Expr", Expr.class),
            Map.entry("Add", Add.class), Map.entry("Point[]", Point[].class), Map.entry("Instant", java.time.Instant.class),
            Map.entry("ZonedDateTime", java.time.ZonedDateTime.class), Map.entry("UUID", java.util.UUID.class),
            Map.entry("BigDecimal", java.math.BigDecimal.class), Map.entry("Trade", Trade.class), Map.entry("Profile", Profile.class),
            Map.entry("Order", Order.class));

    record Vector(String description, String fingerprint, String javaType) {}

    static List<Vector> vectors() throws IOException {
        Path doc = Path.of("..", "docs", "wire-format.md");
        assertTrue(Files.exists(doc), "docs/wire-format.md not found from " + Path.of("").toAbsolutePath());
        Pattern row = Pattern.compile("^\\| `([^`]+)` \\| `([0-9a-f]{16})` \\| `([^`]+)` \\|$");
        return Files.readAllLines(doc).stream().map(row::matcher).filter(Matcher::matches)
                .map(m -> new Vector(m.group(1), m.group(2), m.group(3))).toList();
    }

    @Test
    void everyDocumentedVectorHolds() throws IOException {
        List<Vector> vs = vectors();
        assertTrue(vs.size() >= 18, "expected the vector table, found " + vs.size() + " rows");
        for (Vector v : vs) {
            assertEquals(v.fingerprint(), String.format("%016x", Schema.fingerprintOf(v.description())), v.description());
            if (v.javaType().equals("Color")) continue; // an enum is a field type, never a message type
            Class<?> c = JAVA.get(v.javaType());
            assertNotNull(c, "no Java type for " + v.javaType());
            assertEquals(v.description(), Schema.describe(c), v.javaType());
            assertEquals(Long.parseUnsignedLong(v.fingerprint(), 16), Schema.fingerprint(c), v.javaType());
        }
    }

    sealed interface Badly permits Dotted, Braced, Fine {}
    @WireName("Shapes.Circle") record Dotted(double r) implements Badly {}
    @WireName("C{r:f64}") record Braced(double r) implements Badly {}
    @WireName("Fine_1") record Fine(double r) implements Badly {}

    @Test
    void aWireNameMustBeAnIdentifier() {
        // a name goes into the canonical description: "C{r:f64}" would forge structure, "Shapes.Circle" broke code generation
        for (Class<?> c : List.of(Dotted.class, Braced.class, Badly.class)) {
            WireSchemaException e = assertThrows(WireSchemaException.class, () -> Schema.describe(c), c.getName());
            assertTrue(e.getMessage().contains("is not a Java identifier"), e.getMessage());
        }
        assertTrue(Schema.isIdentifier("Fine_1") && Schema.isIdentifier("$x") && Schema.isIdentifier("Été"));
        assertFalse(Schema.isIdentifier("") || Schema.isIdentifier("1x") || Schema.isIdentifier("a b") || Schema.isIdentifier("a;b"));
    }

    @Test
    void recordAndInterfaceOfOneStructureAgreeWhateverTheMethodOrder() {
        assertEquals(Schema.fingerprint(Point.class), Schema.fingerprint(PointView.class));
        assertEquals("struct{x:i32;y:i32}", Schema.describe(PointView.class));
    }

    @Test
    void fingerprintIsSha256PrefixLittleEndian() throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest("struct{x:i32;y:i32}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        long expected = java.nio.ByteBuffer.wrap(d, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(expected, Schema.fingerprint(Point.class));
    }
}
