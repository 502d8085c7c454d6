package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Reading other versions of a type: by field name, defaults for added fields, removed ones skipped. */
class EvolutionTest {
    public record OrderV1(long id, int qty, String note) {}
    public record OrderV2(long id, int qty, String note, String customer, boolean rush) {}
    public record OrderV0(long id) {}
    public record OrderBadQty(long id, long qty) {}
    public interface OrderView2 { long id(); int qty(); String customer(); boolean rush(); }

    public enum Level1 { LOW, HIGH }
    public enum Level2 { LOW, MEDIUM, HIGH }
    public record Task1(Level1 level) {}
    public record Task2(Level2 level) {}

    public record Batch1(List<OrderV1> orders) {}
    public record Batch2(List<OrderV2> orders) {}

    static Message write(Object o) {
        return new WireReader().validate(MemorySegment.ofArray(new WireWriter().toByteArray(o)));
    }

    @Test
    void newReaderOldWriter_addedFieldsReadAsDefaults() {
        OrderV2 o = write(new OrderV1(7, 3, "hi")).materialize(OrderV2.class);
        assertEquals(new OrderV2(7, 3, "hi", null, false), o);
        OrderView2 v = write(new OrderV1(7, 3, "hi")).view(OrderView2.class);
        assertEquals(7, v.id());
        assertEquals(3, v.qty());
        assertNull(v.customer());
        assertFalse(v.rush());
    }

    @Test
    void oldReaderNewWriter_removedFieldsSkipped() {
        OrderV1 o = write(new OrderV2(9, 1, "n", "acme", true)).materialize(OrderV1.class);
        assertEquals(new OrderV1(9, 1, "n"), o);
        assertEquals(new OrderV0(9), write(new OrderV2(9, 1, "n", "acme", true)).materialize(OrderV0.class));
    }

    @Test
    void evolutionAppliesInsideCollections() {
        Batch2 b = write(new Batch1(List.of(new OrderV1(1, 1, "a"), new OrderV1(2, 2, "b")))).materialize(Batch2.class);
        assertEquals(List.of(new OrderV2(1, 1, "a", null, false), new OrderV2(2, 2, "b", null, false)), b.orders());
    }

    @Test
    void enumsMatchByName() {
        assertEquals(new Task2(Level2.HIGH), write(new Task1(Level1.HIGH)).materialize(Task2.class));
        assertEquals(new Task1(Level1.LOW), write(new Task2(Level2.LOW)).materialize(Task1.class));
        WireSchemaException e = assertThrows(WireSchemaException.class, () -> write(new Task2(Level2.MEDIUM)).materialize(Task1.class));
        assertTrue(e.getMessage().contains("MEDIUM"), e.getMessage());
    }

    @Test
    void incompatibleChangeNamesTheField() {
        WireSchemaException e = assertThrows(WireSchemaException.class, () -> write(new OrderV1(1, 2, "x")).materialize(OrderBadQty.class));
        assertTrue(e.getMessage().contains("qty"), e.getMessage());
        assertTrue(e.getMessage().contains("i32"), e.getMessage());
    }
}
