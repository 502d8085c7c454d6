package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import static dev.verbatim.wire.MessageDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** Each validation rule of docs/wire-format.md §4, broken on purpose: the exception names that rule and where. */
class ValidatorRulesTest {
    public record Flags(boolean on, Level level, int n) {}
    public enum Level { A, B }
    public static final class Node { int value; Node next; }
    public record Pair(Node node, String name) {}
    public record Strings(List<String> names) {}
    public record Row(boolean on, Level level, String name, Row next) {}
    public record Rows(List<Row> rows) {}
    public record Wide(String a00, String a01, String a02, String a03, String a04, String a05, String a06, String a07, String a08,
                       String a09, String a10, String a11, String a12, String a13, String a14, String a15, String a16, String a17) {}
    public record Wides(List<Wide> wides) {}

    private static final WireWriter W = new WireWriter();

    static byte[] bytes(Object o) { return W.toByteArray(o); }

    static MemorySegment seg(byte[] b) { return MemorySegment.ofArray(b); }

    static long tail(byte[] b) {
        MemorySegment s = seg(b);
        return b.length - 8L * (s.get(I16, TYPE_COUNT_OFFSET) & 0xFFFF) - 8L * s.get(I32, OBJECT_COUNT_OFFSET);
    }

    static long objTable(byte[] b) {
        return tail(b) + 8L * (seg(b).get(I16, TYPE_COUNT_OFFSET) & 0xFFFF);
    }

    static void expect(String rule, byte[] b, Consumer<MemorySegment> damage) {
        byte[] copy = b.clone();
        MemorySegment s = seg(copy);
        damage.accept(s);
        WireFormatException e = assertThrows(WireFormatException.class, () -> new WireReader().validate(s));
        assertEquals(rule, e.rule(), e.getMessage());
    }

    @Test
    void header() {
        byte[] b = bytes(new Flags(true, Level.B, 1));
        expect("message shorter than its header", new byte[7], s -> { });
        expect("unsupported format version", b, s -> s.set(I8, 0, (byte) 2));
        expect("unknown flags", b, s -> s.set(I8, 1, (byte) 1));
        expect("too many objects", b, s -> s.set(I32, 4, -5));
        expect("tables do not fit the message", b, s -> s.set(I32, 4, 1000));
        expect("tables do not fit the message", b, s -> s.set(I16, 2, (short) 7));
        WireFormatException big = assertThrows(WireFormatException.class,
                () -> new WireReader(WireLimits.DEFAULT.withMaxMessageBytes(16)).validate(seg(b)));
        assertEquals("message larger than the limit", big.rule());
        WireFormatException many = assertThrows(WireFormatException.class,
                () -> new WireReader(WireLimits.DEFAULT.withMaxObjects(0)).validate(seg(b)));
        assertEquals("too many objects", many.rule());
    }

    @Test
    void typeTable() {
        byte[] b = bytes(new Flags(true, Level.B, 1));
        long tail = tail(b);
        expect("unknown type fingerprint", b, s -> s.set(I64, tail, 0x1234_5678_9abc_def0L));
        expect("type table names a type that is not an object type", b, s -> s.set(I64, tail, Schema.fingerprint(String.class)));
    }

    @Test
    void objectTableAndLayout() {
        byte[] b = bytes(new Pair(new Node(), "abcdefghijkl"));
        long ot = objTable(b);
        expect("object table entry does not match the layout", b, s -> s.set(I32, ot, 16));
        expect("unknown type id", b, s -> s.set(I32, ot + 4, 0));
        expect("unknown type id", b, s -> s.set(I32, ot + 4, MAX_BUILTIN + 1)); // 28: the first reserved id
        expect("unknown type id", b, s -> s.set(I32, ot + 4, FIRST_TABLE_TYPE_ID + 9));
        // Find the string through its object-table entry and make its length claim more than the message holds.
        long strAt = -1;
        for (int i = 0; i < seg(b).get(I32, 4); i++) {
            if (seg(b).get(I32, ot + 8L * i + 4) == T_STRING) strAt = seg(b).get(I32, ot + 8L * i);
        }
        assertTrue(strAt > 0);
        long stringAt = strAt;
        boolean stringIsLast = seg(b).get(I32, ot + 8L * (seg(b).get(I32, 4) - 1) + 4) == T_STRING;
        expect("string overruns the tables", b, s -> s.set(I32, stringAt, 1 << 30));
        // Shortening the string leaves a gap: before the next object, or before the tables if it is the last.
        expect(stringIsLast ? "bytes between the last object and the tables" : "object table entry does not match the layout",
                b, s -> s.set(I32, stringAt, 0));
        // Eight bytes more: the tables are looked for 8 bytes later, and what is found there is refused.
        byte[] extra = Arrays.copyOf(b, b.length + 8);
        assertThrows(WireFormatException.class, () -> new WireReader().validate(seg(extra)));
        expect("tables do not fit the message", Arrays.copyOf(b, b.length + 4), s -> { });
    }

    @Test
    void values() {
        byte[] b = bytes(new Flags(true, Level.B, 1));
        Shape s = Schema.of(Flags.class).shape;
        int onAt = HEADER_LENGTH + s.field("on").offset;
        int levelAt = HEADER_LENGTH + s.field("level").offset;
        expect("boolean not 0 or 1", b, m -> m.set(I8, onAt, (byte) 2));
        expect("enum ordinal out of range", b, m -> m.set(I32, levelAt, 2));
        expect("enum ordinal out of range", b, m -> m.set(I32, levelAt, -2));
        Flags ok = new WireReader().validate(seg(b)).materialize(Flags.class);
        assertEquals(new Flags(true, Level.B, 1), ok);
    }

    @Test
    void references() {
        byte[] b = bytes(new Pair(new Node(), "abcdefghijkl"));
        Shape s = Schema.of(Pair.class).shape;
        int nodeAt = HEADER_LENGTH + s.field("node").offset;
        int nameAt = HEADER_LENGTH + s.field("name").offset;
        expect("reference out of range", b, m -> m.set(I32, nodeAt, 3));
        expect("reference out of range", b, m -> m.set(I32, nodeAt, -2));
        // Point the Node field at the String object and the String field at the Node: both wrong types.
        int nodeRef = seg(b).get(I32, nodeAt);
        int nameRef = seg(b).get(I32, nameAt);
        expect("reference to an object of the wrong type", b, m -> m.set(I32, nodeAt, nameRef));
        expect("reference to an object of the wrong type", b, m -> m.set(I32, nameAt, nodeRef));
        expect("reference to an object of the wrong type", b, m -> m.set(I32, nodeAt, 0));
        // null is always fine
        byte[] c = b.clone();
        seg(c).set(I32, nodeAt, NULL_REF);
        assertNull(new WireReader().validate(seg(c)).materialize(Pair.class).node());
    }

    @Test
    void everyObjectTableEntryIsCheckedWhateverItHolds() {
        // Objects: 0 the Pair, then its Node and its String in some order, then the Node's next (a Node).
        Node n = new Node();
        n.next = new Node();
        byte[] b = bytes(new Pair(n, "s"));
        long ot = objTable(b);
        // All ones, and type ids that are no type, right after a struct or a string (the validator's runs).
        // Whichever comes first rejects it: a reference to the object (its type), or the object's own entry.
        java.util.Set<String> rules = java.util.Set.of("object table entry does not match the layout", "unknown type id",
                "reference to an object of the wrong type");
        // Objects nobody references are checked too: the same again with the Pair's references nulled.
        byte[] orphans = b.clone();
        Shape ps = Schema.of(Pair.class).shape;
        seg(orphans).set(I32, HEADER_LENGTH + ps.field("node").offset, NULL_REF);
        seg(orphans).set(I32, HEADER_LENGTH + ps.field("name").offset, NULL_REF);
        new WireReader().validate(seg(orphans)); // valid as it is
        for (int i = 1; i < 8; i++) {
            long at = ot + 8L * (i % 4);
            List<Consumer<MemorySegment>> damages = new java.util.ArrayList<>();
            damages.add(m -> m.set(I64, at, -1L));
            for (long tid : new long[] {0xFFFF_FFFFL, 0xFFFF_FFFEL, 0x7FFF_FFFFL, 0}) damages.add(m -> m.set(I32, at + 4, (int) tid));
            for (Consumer<MemorySegment> damage : damages) {
                MemorySegment copy = seg((i < 4 ? b : orphans).clone());
                damage.accept(copy);
                WireFormatException e = assertThrows(WireFormatException.class, () -> new WireReader().validate(copy), "entry " + i % 4);
                assertTrue(rules.contains(e.rule()), e.getMessage());
            }
        }
    }

    /** The offsets of the objects of type id {@code tid}, in object order. */
    static long[] offsetsOf(byte[] b, int tid) {
        long ot = objTable(b);
        return java.util.stream.IntStream.range(0, seg(b).get(I32, OBJECT_COUNT_OFFSET))
                .filter(i -> seg(b).get(I32, ot + 8L * i + 4) == tid)
                .mapToLong(i -> seg(b).get(I32, ot + 8L * i)).toArray();
    }

    @Test
    void everyObjectOfARunIsChecked() {
        // A run of rows (one struct type, consecutive): the validator checks the run's objects in one loop that
        // remembers the target type each reference accepted last. Break the last row of the run, after the first
        // rows accepted the same fields: each rule still holds there.
        List<Row> rows = new java.util.ArrayList<>();
        Row next = null;
        for (int i = 0; i < 5; i++) rows.add(0, next = new Row(i % 2 == 0, Level.values()[i % 2], "s", next));
        byte[] b = bytes(new Rows(rows));
        new WireReader().validate(seg(b)); // valid as it is
        Shape s = Schema.of(Row.class).shape;
        int rowTid = seg(b).get(I32, objTable(b) + 8 * 2 + 4); // 0 Rows, 1 the list, 2.. the rows
        long[] at = offsetsOf(b, rowTid);
        assertEquals(5, at.length);
        long last = at[4];
        long first = at[0];
        int rowRef = 3; // object 3 is a row (the second)
        int strRef = seg(b).get(I32, first + s.field("name").offset);
        expect("boolean not 0 or 1", b, m -> m.set(I8, last + s.field("on").offset, (byte) 3));
        expect("enum ordinal out of range", b, m -> m.set(I32, last + s.field("level").offset, 2));
        expect("reference to an object of the wrong type", b, m -> m.set(I32, last + s.field("name").offset, rowRef));
        expect("reference to an object of the wrong type", b, m -> m.set(I32, at[3] + s.field("next").offset, strRef));
        // A row's next is checked against the run's bounds first (a row there is of the type): just past its end, and
        // before its start, the object table decides.
        assertEquals(2 + 5, strRef, "the tag follows the run");
        expect("reference to an object of the wrong type", b, m -> m.set(I32, first + s.field("next").offset, 0));
        expect("reference to an object of the wrong type", b, m -> m.set(I32, first + s.field("next").offset, 1));
        expect("reference out of range", b, m -> m.set(I32, last + s.field("name").offset, 99));
        expect("reference out of range", b, m -> m.set(I32, last + s.field("next").offset, -7));
    }

    @Test
    void aStructOfARunOverrunningTheTables() {
        // Two Flags (9 bytes each, 16 aligned), the second cut to 8 bytes: it is the second of a run that overruns.
        byte[] one = bytes(new Flags(true, Level.B, 1));
        long fp = seg(one).get(I64, tail(one));
        MemorySegment m = MemorySegment.ofArray(new byte[8 + 16 + 8 + 8 + 16]);
        m.set(I64, 0, VERSION | 1L << 16 | 2L << 32);
        MemorySegment.copy(seg(one), HEADER_LENGTH, m, HEADER_LENGTH, 16);
        MemorySegment.copy(seg(one), HEADER_LENGTH, m, HEADER_LENGTH + 16, 8);
        m.set(I64, 32, fp);
        m.set(I64, 40, objectEntry(8, FIRST_TABLE_TYPE_ID));
        m.set(I64, 48, objectEntry(24, FIRST_TABLE_TYPE_ID));
        WireFormatException e = assertThrows(WireFormatException.class, () -> new WireReader().validate(m));
        assertEquals("object overruns the tables", e.rule(), e.getMessage());
        assertEquals(24, e.offset(), e.getMessage());
    }

    @Test
    void everyReferenceOfAWideStructIsChecked() {
        // More references than the generated validator keeps accepted types for: the last ones are checked in full.
        List<Wide> wides = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) wides.add(new Wide("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r" + i));
        byte[] b = bytes(new Wides(wides));
        new WireReader().validate(seg(b));
        Shape s = Schema.of(Wide.class).shape;
        int wideTid = seg(b).get(I32, objTable(b) + 8 * 2 + 4);
        long[] at = offsetsOf(b, wideTid);
        assertEquals(3, at.length);
        for (String f : new String[] {"a00", "a15", "a16", "a17"}) {
            long ref = at[2] + s.field(f).offset;
            expect("reference to an object of the wrong type", b, m -> m.set(I32, ref, 2));
            expect("reference out of range", b, m -> m.set(I32, ref, 1000));
        }
    }

    @Test
    void elementsOfReferenceArraysAreChecked() {
        byte[] b = bytes(new Strings(List.of("a", "b")));
        long ot = objTable(b);
        long listAt = seg(b).get(I32, ot + 8);
        expect("reference to an object of the wrong type", b, m -> m.set(I32, listAt + 4, 0));
        expect("reference out of range", b, m -> m.set(I32, listAt + 8, 99));
        expect("negative array length", b, m -> m.set(I32, listAt, -1));
        expect("array overruns the tables", b, m -> m.set(I32, listAt, 1 << 28));
    }

    @Test
    void validationIsOverObjectsNotBytes() {
        // A huge array is validated by its length alone: the check cannot depend on its contents.
        byte[] big = bytes(new byte[1 << 20]);
        Arrays.fill(big, 8 + 4, 8 + 4 + (1 << 20), (byte) 0x5A);
        Message m = new WireReader().validate(seg(big));
        assertEquals(1 << 20, m.view(ArrayView.OfByte.class).length());
        assertEquals(0x5A, m.view(ArrayView.OfByte.class).get(1 << 19));
    }

    @Test
    void viewsRecheckWhatTheyFollowWhenMemoryChangesAfterValidation() {
        Node a = new Node();
        a.next = new Node();
        a.next.value = 7;
        byte[] b = bytes(a);
        MemorySegment s = seg(b);
        Message m = new WireReader().validate(s);
        RoundTripTest.NodeView v = m.view(RoundTripTest.NodeView.class);
        // A shared-memory peer scribbles after validation: the root's next now points out of range.
        int nextAt = HEADER_LENGTH + Schema.of(Node.class).shape.field("next").offset;
        s.set(I32, nextAt, 12345);
        WireFormatException e = assertThrows(WireFormatException.class, v::next);
        assertEquals("message changed after validation", e.rule());
        s.set(I32, nextAt, 1);
        assertEquals(7, v.next().value());
        // The object table is read once, at validation: changing it afterwards changes nothing a view reads.
        long ot = objTable(b);
        s.set(I32, ot + 8, 1 << 30); // object 1's offset, far outside
        s.set(I32, ot + 8 + 4, 0xFFFF); // and its type id, unknown
        assertEquals(7, v.next().value());
        assertEquals(7, m.view(RoundTripTest.NodeView.class).next().value());
        assertEquals(7, m.materialize(Node.class).next.value);
    }

    public record Chains(Node first, Node second, String tag, Chains other) {}

    @Test
    void viewsFollowingReferencesIntoTheLongestRunRecheckThemToo() {
        // Objects: 0 Chains, 1 the first chain's head, 2 the second's, 3 the tag, then the first chain's 2 more nodes
        // (a run of 2, from 4), and the second chain's 40 nodes (the longest run): views compute the offsets of the
        // latter from the run, and take the others from the object table.
        Node first = null, second = null;
        for (int i = 2; i >= 0; i--) { Node n = new Node(); n.value = 100 + i; n.next = first; first = n; }
        for (int i = 40; i >= 0; i--) { Node n = new Node(); n.value = i; n.next = second; second = n; }
        Chains c = new Chains(first, second, "t", null);
        byte[] b = bytes(c);
        MemorySegment s = seg(b);
        Message m = new WireReader().validate(s);
        RoundTripTest.NodeView v = m.view(RoundTripTest.ChainsView.class).second();
        for (int i = 0; i <= 40; i++, v = v.next()) assertEquals(i, v.value());
        assertNull(v);
        RoundTripTest.NodeView f = m.view(RoundTripTest.ChainsView.class).first();
        for (int i = 0; i <= 2; i++, f = f.next()) assertEquals(100 + i, f.value());
        assertNull(f);
        // A peer scribbles after validation: a node of the run now points at the tag (a string), at the root, past the
        // last object, at a node of the other chain (a node: fine), and at the run's last node (fine).
        int nextOff = Schema.of(Node.class).shape.field("next").offset;
        int nodeTid = seg(b).get(I32, objTable(b) + 8 * 2 + 4);
        long[] nodes = offsetsOf(b, nodeTid);
        assertEquals(2 + 2 + 40, nodes.length);
        long at = nodes[nodes.length - 20] + nextOff; // a node in the middle of the run
        RoundTripTest.NodeView before = m.view(RoundTripTest.ChainsView.class).second();
        for (int i = 0; i < 40 - 20 + 1; i++) before = before.next(); // the view of that node
        assertEquals(40 - 20 + 1, before.value());
        for (int bad : new int[] {3, 0, 4 + 2 + 40, -2}) {
            s.set(I32, at, bad);
            WireFormatException e = assertThrows(WireFormatException.class, before::next, "reference " + bad);
            assertEquals("message changed after validation", e.rule());
        }
        s.set(I32, at, 4);
        assertEquals(101, before.next().value());
        s.set(I32, at, 1);
        assertEquals(100, before.next().value());
        s.set(I32, at, 4 + 2 + 40 - 1);
        assertEquals(40, before.next().value());
        assertNull(before.next().next());
        // A reference of another struct type into the run: the run's shape is checked too.
        int otherAt = HEADER_LENGTH + Schema.of(Chains.class).shape.field("other").offset;
        RoundTripTest.ChainsView root = m.view(RoundTripTest.ChainsView.class);
        assertNull(root.other());
        s.set(I32, otherAt, 10);
        assertEquals("message changed after validation", assertThrows(WireFormatException.class, root::other).rule());
        s.set(I32, otherAt, 0);
        assertEquals(100, root.other().first().value());
    }

    @Test
    void aStructTypeOnlyLearnedIsValidatedWithoutGeneratedCode() {
        // A type no class of this process has, learned from a description: its runs are validated by the generic
        // validator (a peer cannot make the process generate a class per type it describes), by the same rules.
        long fp = new TypeDictionary().learn("struct{a:i32;flag:bool;n:@0;s:string}");
        Shape s = Schema.shapeByFingerprint(fp);
        assertFalse(s.local);
        long step = align8(s.objectSize);
        int objects = 4; // three nodes n0 -> n1 -> n2, each s -> the string (object 3)
        long strAt = HEADER_LENGTH + 3 * step;
        long tail = align8(strAt + 4 + 2);
        MemorySegment m = MemorySegment.ofArray(new byte[(int) (tail + 8 + 8L * objects)]);
        m.set(I64, 0, VERSION | 1L << 16 | (long) objects << 32);
        for (int k = 0; k < 3; k++) {
            long at = HEADER_LENGTH + k * step;
            m.set(I32, at + s.field("a").offset, 10 * k);
            m.set(I8, at + s.field("flag").offset, (byte) (k & 1));
            m.set(I32, at + s.field("n").offset, k < 2 ? k + 1 : NULL_REF);
            m.set(I32, at + s.field("s").offset, 3);
            m.set(I64, tail + 8 + 8L * k, objectEntry((int) at, FIRST_TABLE_TYPE_ID));
        }
        m.set(I32, strAt, 2);
        m.set(I8, strAt + 4, (byte) 'h');
        m.set(I8, strAt + 5, (byte) 'i');
        m.set(I64, tail, fp);
        m.set(I64, tail + 8 + 8L * 3, objectEntry((int) strAt, T_STRING));
        byte[] b = m.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        assertEquals(4, new WireReader().validate(seg(b)).objectCount());
        assertInstanceOf(GenericStructValidator.class, s.validator);
        long last = HEADER_LENGTH + 2 * step;
        expect("boolean not 0 or 1", b, x -> x.set(I8, last + s.field("flag").offset, (byte) 2));
        expect("reference out of range", b, x -> x.set(I32, last + s.field("n").offset, 4));
        expect("reference to an object of the wrong type", b, x -> x.set(I32, last + s.field("n").offset, 3));
        expect("reference to an object of the wrong type", b, x -> x.set(I32, last + s.field("s").offset, 1));
        expect("object table entry does not match the layout", b, x -> x.set(I32, tail + 8 + 8L * 2, (int) last + 8));
        assertInstanceOf(GenericStructValidator.class, s.validator);
    }

    @Test
    void aLocalShapeTooLargeForGeneratedCodeIsValidatedByTheTableDrivenValidator() throws Throwable {
        // An accessor interface of 1000 string fields: its generated validator would exceed a method's 64 KiB of
        // bytecode, so the shape gets the table-driven one for good, by the same rules, not an exception out of validate.
        int n = 1000;
        String name = ValidatorRulesTest.class.getPackageName() + ".Wide" + n;
        java.lang.constant.ClassDesc self = java.lang.constant.ClassDesc.of(name);
        byte[] bytes = java.lang.classfile.ClassFile.of().build(self, cb -> {
            cb.withFlags(java.lang.classfile.ClassFile.ACC_PUBLIC | java.lang.classfile.ClassFile.ACC_INTERFACE
                    | java.lang.classfile.ClassFile.ACC_ABSTRACT);
            for (int k = 0; k < n; k++) {
                cb.withMethod(String.format("f%04d", k), java.lang.constant.MethodTypeDesc.of(java.lang.constant.ConstantDescs.CD_String),
                        java.lang.classfile.ClassFile.ACC_PUBLIC | java.lang.classfile.ClassFile.ACC_ABSTRACT, mb -> { });
            }
        });
        Class<?> wide = java.lang.invoke.MethodHandles.lookup().defineClass(bytes);
        Object value = java.lang.reflect.Proxy.newProxyInstance(wide.getClassLoader(), new Class<?>[] {wide},
                (proxy, method, args) -> method.getName().equals("f0007") ? "seven" : null);
        WireWriter w = new WireWriter();
        @SuppressWarnings("unchecked")
        Class<Object> as = (Class<Object>) wide;
        MemorySegment m = MemorySegment.ofArray(new byte[(int) w.sizeOf(value, as)]);
        w.write(value, as, m, 0);
        Message msg = new WireReader().validate(m);
        Shape s = Schema.of(wide).shape;
        assertInstanceOf(GenericStructValidator.class, s.validator);
        assertTrue(s.validator.settled, "no second attempt at generating code for every message");
        assertEquals("seven", wide.getMethod("f0007").invoke(msg.view(as)).toString());
        long at = HEADER_LENGTH + s.field("f0999").offset;
        byte[] b = m.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        expect("reference out of range", b, x -> x.set(I32, at, 5));
        assertSame(s.validator, validatorAfter(b), "the same validator, kept");
    }

    private static StructValidator validatorAfter(byte[] b) {
        Message msg = new WireReader().validate(seg(b));
        return msg.ids[FIRST_TABLE_TYPE_ID].validator;
    }

    /** What a reader of the learned versions below declares. */
    public interface Versioned { int a(); }

    @Test
    void readingsOfLearnedTypesAreBoundedPerProcess() {
        // Each (learned shape, local type) pair may get generated view and materializer classes: a file describing
        // many versions of a type would make the process generate classes without bound. Past the cap: a clear error.
        int before = Binding.learnedBindings();
        Binding.learnedBindingsCap = before + 2;
        try {
            long salt = System.nanoTime();
            for (int k = 0; k < 3; k++) {
                long fp = new TypeDictionary().learn("struct{a:i32;x" + salt + "_" + k + ":i32}");
                Shape s = Schema.shapeByFingerprint(fp);
                long tail = HEADER_LENGTH + align8(s.objectSize);
                MemorySegment m = MemorySegment.ofArray(new byte[(int) (tail + 8 + 8)]);
                m.set(I64, 0, VERSION | 1L << 16 | 1L << 32);
                m.set(I32, HEADER_LENGTH + s.field("a").offset, 40 + k);
                m.set(I64, tail, fp);
                m.set(I64, tail + 8, objectEntry(HEADER_LENGTH, FIRST_TABLE_TYPE_ID));
                Message msg = new WireReader().validate(m);
                if (k < 2) {
                    assertEquals(40 + k, msg.view(Versioned.class).a(), "version " + k);
                } else {
                    WireSchemaException e = assertThrows(WireSchemaException.class, () -> msg.view(Versioned.class));
                    assertTrue(e.getMessage().contains("the most it will"), e.getMessage());
                }
            }
            assertEquals(before + 2, Binding.learnedBindings());
        } finally {
            Binding.learnedBindingsCap = Binding.MAX_LEARNED_BINDINGS;
        }
    }

    /** Described before any use: the first message of it arrives while no Java type of this process has its shape. */
    public static final class Learned { int q; Learned r; }

    @Test
    void aLearnedShapeGetsGeneratedCodeOnceAJavaTypeOfItIsKnown() {
        long fp = new TypeDictionary().learn("struct{q:i32;r:@0}");
        Shape s = Schema.shapeByFingerprint(fp);
        assertFalse(s.local);
        MemorySegment m = MemorySegment.ofArray(new byte[8 + 8 + 8 + 8]);
        m.set(I64, 0, VERSION | 1L << 16 | 1L << 32);
        m.set(I32, HEADER_LENGTH + s.field("q").offset, 5);
        m.set(I32, HEADER_LENGTH + s.field("r").offset, NULL_REF);
        m.set(I64, 16, fp);
        m.set(I64, 24, objectEntry(HEADER_LENGTH, FIRST_TABLE_TYPE_ID));
        new WireReader().validate(m);
        assertInstanceOf(GenericStructValidator.class, s.validator);
        assertSame(s, Schema.of(Learned.class).shape);
        assertTrue(s.local);
        assertEquals(5, new WireReader().validate(m).materialize(Learned.class).q);
        assertFalse(s.validator instanceof GenericStructValidator, s.validator.getClass().getName());
    }
}
