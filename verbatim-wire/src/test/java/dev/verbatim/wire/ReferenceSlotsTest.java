package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Reference slots ({@link ByReference}, docs/wire-format.md §3): fields, array and list elements and map values whose
 * declared type is an interface passed by reference are written as indices into a table the caller keeps beside the
 * message, checked against that table when validated, and resolved through it when read.
 */
class ReferenceSlotsTest {
    public interface Customer extends ByReference { String name(); }
    public record Person(String name) implements Customer {}
    public record Order(String id, Customer customer, List<Customer> others) {}
    public record Holder(Customer[] array, Map<String, Customer> byName, Customer single) {}
    public interface OrderView { String id(); Customer customer(); List<Customer> others(); }
    public static final class Mutable { Customer who; int n; }

    /** A sink and a source in one: a table by identity, as the object layer keeps one per message. */
    static final class Table implements ByReference.Sink, ByReference.Source {
        final List<Object> entries = new ArrayList<>();
        final Map<Object, Integer> index = new IdentityHashMap<>();

        @Override public int enter(Object value, Class<?> declared) {
            return index.computeIfAbsent(value, v -> { entries.add(v); return entries.size() - 1; });
        }

        @Override public int size() { return entries.size(); }

        @Override public Object resolve(int i, Class<?> declared) { return entries.get(i); }
    }

    static byte[] write(Object root, Table t) {
        WireWriter w = new WireWriter();
        w.references(t);
        long n = w.sizeOf(root);
        byte[] b = new byte[(int) n];
        assertEquals(n, w.write(root, MemorySegment.ofArray(b), 0));
        w.references(null);
        return b;
    }

    @Test
    void aRecordWithReferencesRoundTripsThroughItsTable() {
        Person ann = new Person("ann"), bob = new Person("bob");
        Table t = new Table();
        byte[] b = write(new Order("o1", ann, List.of(bob, ann, bob)), t);
        assertEquals(List.of(ann, bob), t.entries, "one entry per object, by identity, in the order met");
        Order o = new WireReader().validate(MemorySegment.ofArray(b), t).materialize(Order.class);
        assertSame(ann, o.customer());
        assertEquals(3, o.others().size());
        assertSame(bob, o.others().get(0));
        assertSame(ann, o.others().get(1));
        OrderView v = new WireReader().validate(MemorySegment.ofArray(b), t).view(OrderView.class);
        assertEquals("o1", v.id());
        assertSame(ann, v.customer());
        assertSame(bob, v.others().get(2));
    }

    @Test
    void arraysMapValuesClassFieldsAndNullsAreSlotsToo() {
        Person ann = new Person("ann");
        Map<String, Customer> m = new LinkedHashMap<>();
        m.put("a", ann);
        m.put("none", null);
        Table t = new Table();
        byte[] b = write(new Holder(new Customer[] {ann, null}, m, null), t);
        assertEquals(1, t.size());
        Holder h = new WireReader().validate(MemorySegment.ofArray(b), t).materialize(Holder.class);
        assertSame(ann, h.array()[0]);
        assertNull(h.array()[1]);
        assertSame(ann, h.byName().get("a"));
        assertNull(h.byName().get("none"));
        assertNull(h.single());
        Mutable x = new Mutable();
        x.who = ann;
        x.n = 7;
        Table t2 = new Table();
        Mutable y = new WireReader().validate(MemorySegment.ofArray(write(x, t2)), t2).materialize(Mutable.class);
        assertSame(ann, y.who);
        assertEquals(7, y.n);
    }

    @Test
    void theDescriptionSaysRefWhateverTheInterface() {
        assertEquals("struct{customer:ref;id:string;others:list(ref)}", Schema.describe(Order.class));
        assertEquals("struct{array:array(ref);byName:map(string,ref);single:ref}", Schema.describe(Holder.class));
        assertEquals(Schema.describe(Order.class), Schema.describe(OrderView.class));
    }

    public record Keyed(Map<Customer, String> byCustomer) {}
    public record InSet(java.util.Set<Customer> customers) {}
    public record Maybe(java.util.Optional<Customer> customer) {}

    @Test
    void aReferenceIsNeverAKeyASetElementOrAnOptional() {
        for (Class<?> c : List.of(Keyed.class, InSet.class, Maybe.class)) {
            WireSchemaException e = assertThrows(WireSchemaException.class, () -> Schema.describe(c), c.getName());
            assertTrue(e.getMessage().contains("by reference"), e.getMessage());
        }
        assertThrows(WireSchemaException.class, () -> new WireWriter().sizeOf(new Person("x"), Customer.class));
    }

    @Test
    void withoutASinkAReferenceCannotBeWritten() {
        WireWriter w = new WireWriter();
        Order o = new Order("o", new Person("p"), List.of());
        byte[] b = new byte[(int) w.sizeOf(o)];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.write(o, MemorySegment.ofArray(b), 0));
        assertTrue(e.getMessage().contains("passed by reference"), e.getMessage());
        // a null slot needs no table
        Order none = new Order("o", null, List.of());
        Order back = new WireReader().validate(MemorySegment.ofArray(w.toByteArray(none))).materialize(Order.class);
        assertNull(back.customer());
    }

    @Test
    void aSlotIsCheckedAgainstTheTableItCameWith() {
        Table t = new Table();
        byte[] b = write(new Order("o", new Person("p"), List.of(new Person("q"))), t);
        // no table (a stored file, a plain message): refused, naming why
        WireFormatException none = assertThrows(WireFormatException.class, () -> new WireReader().validate(MemorySegment.ofArray(b)));
        assertTrue(none.getMessage().contains("no table of references"), none.getMessage());
        // a table too short for the slots: out of range
        Table shorter = new Table();
        shorter.enter(new Person("only"), Customer.class);
        WireFormatException out = assertThrows(WireFormatException.class,
                () -> new WireReader().validate(MemorySegment.ofArray(b), shorter));
        assertTrue(out.getMessage().contains("reference slot out of range"), out.getMessage());
        // a forged slot value in the message
        Order o = new WireReader().validate(MemorySegment.ofArray(b), t).materialize(Order.class);
        assertNotNull(o.customer());
        int at = slotOffset(b);
        MemorySegment.ofArray(b).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, at, -7);
        WireFormatException forged = assertThrows(WireFormatException.class,
                () -> new WireReader().validate(MemorySegment.ofArray(b), t));
        assertTrue(forged.getMessage().contains("reference slot out of range"), forged.getMessage());
    }

    @Test
    void anEntryOfTheWrongTypeIsRefusedWhenRead() {
        Table t = new Table();
        byte[] b = write(new Order("o", new Person("p"), List.of()), t);
        t.entries.set(0, "not a customer");
        Message m = new WireReader().validate(MemorySegment.ofArray(b), t);
        WireFormatException e = assertThrows(WireFormatException.class, () -> m.materialize(Order.class));
        assertTrue(e.getMessage().contains("wrong type"), e.getMessage());
    }

    /** The offset of the root Order's customer slot: its layout puts the 4-byte fields by name (customer, id, others). */
    private static int slotOffset(byte[] b) {
        return 8 + Schema.of(Order.class).shape.field("customer").offset;
    }

    @Test
    void aPeerLearnsARefDescription() {
        List<String> d = TypeDictionary.describe(Order.class);
        assertFalse(d.contains("ref"), "a slot is not a type of its own: " + d);
        assertTrue(d.stream().anyMatch(s -> s.contains("customer:ref")), d.toString());
    }
}
