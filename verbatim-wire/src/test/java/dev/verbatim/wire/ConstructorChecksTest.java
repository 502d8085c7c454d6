package dev.verbatim.wire;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a materialized object's constructor checks see. A record is built through its canonical constructor, so its
 * checks run on the values a peer sent; a class is built through its no-argument constructor with its fields then set
 * directly, so its other constructors' checks do not run, and {@link WireLimits#recordsOnly()} refuses it.
 */
class ConstructorChecksTest {
    /** The checked type: a positive quantity. */
    public record Quantity(int amount) {
        public Quantity {
            if (amount <= 0) throw new IllegalArgumentException("amount must be positive: " + amount);
        }
    }

    /** Same structure, no check: what a hostile sender writes (the fingerprint is structural). */
    public record Forged(int amount) {}

    /** A class with the same check in its constructor, and the no-argument constructor the materializer needs. */
    public static final class QuantityBox {
        public final int amount;

        @SuppressWarnings("unused") // the materializer's
        private QuantityBox() { this.amount = 1; }

        public QuantityBox(int amount) {
            if (amount <= 0) throw new IllegalArgumentException("amount must be positive: " + amount);
            this.amount = amount;
        }
    }

    public record Order(String symbol, QuantityBox quantity) {}

    public record ForgedOrder(String symbol, Forged quantity) {}

    private static Message forged(Object root, WireLimits limits) {
        return new WireReader(limits).validate(java.lang.foreign.MemorySegment.ofArray(new WireWriter().toByteArray(root)));
    }

    @Test
    void aRecordIsBuiltThroughItsCanonicalConstructorSoItsChecksRun() {
        assertEquals(new Quantity(5), forged(new Forged(5), WireLimits.DEFAULT).materialize(Quantity.class));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> forged(new Forged(-3), WireLimits.DEFAULT).materialize(Quantity.class));
        assertTrue(e.getMessage().contains("-3"), e.getMessage());
    }

    @Test
    void aClassIsBuiltWithoutItsCheckingConstructorByDefault() {
        QuantityBox box = forged(new Forged(-3), WireLimits.DEFAULT).materialize(QuantityBox.class);
        assertEquals(-3, box.amount, "the check of QuantityBox(int) did not run: what recordsOnly is for");
    }

    @Test
    void recordsOnlyRefusesAClassAsRootOrAnywhereInTheGraphAndNamesIt() {
        WireLimits strict = WireLimits.DEFAULT.withRecordsOnly(true);
        WireSchemaException root = assertThrows(WireSchemaException.class,
                () -> forged(new Forged(3), strict).materialize(QuantityBox.class));
        assertTrue(root.getMessage().contains(QuantityBox.class.getName()) && root.getMessage().contains("recordsOnly"),
                root.getMessage());
        assertThrows(WireSchemaException.class,
                () -> forged(new ForgedOrder("ACME", new Forged(3)), strict).materialize(Order.class));
        assertThrows(WireSchemaException.class,
                () -> forged(List.of(new Forged(3)), strict).materialize(QuantityBox[].class));
        assertEquals(new Quantity(3), forged(new Forged(3), strict).materialize(Quantity.class), "records are built");
        assertEquals("ACME", forged("ACME", strict).materialize(String.class));
    }

    @Test
    void forPeersIsTheDefaultUnlessThePropertyAsksForRecordsOnly() {
        String before = System.getProperty(WireLimits.PEER_RECORDS_ONLY_PROPERTY);
        try {
            System.clearProperty(WireLimits.PEER_RECORDS_ONLY_PROPERTY);
            assertEquals(WireLimits.DEFAULT, WireLimits.forPeers());
            assertTrue(WireLimits.forPeers(true).recordsOnly(), "a node's option asks for it");
            System.setProperty(WireLimits.PEER_RECORDS_ONLY_PROPERTY, "true");
            assertTrue(WireLimits.forPeers().recordsOnly());
            assertTrue(WireLimits.forPeers(false).recordsOnly(), "the property is a floor a node's options cannot lift");
            assertFalse(WireLimits.DEFAULT.recordsOnly());
        } finally {
            if (before == null) System.clearProperty(WireLimits.PEER_RECORDS_ONLY_PROPERTY);
            else System.setProperty(WireLimits.PEER_RECORDS_ONLY_PROPERTY, before);
        }
    }
}
