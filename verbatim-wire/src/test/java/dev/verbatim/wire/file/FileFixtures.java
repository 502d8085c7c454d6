package dev.verbatim.wire.file;

import dev.verbatim.wire.ArrayView;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Types and graphs stored in files by the file tests (public: views of them are generated). */
public final class FileFixtures {
    private FileFixtures() {}

    public enum Color { RED, GREEN, BLUE }

    public record Item(int id, String name, Color color, int[] values, List<Item> children) {}

    public interface ItemView {
        int id();
        CharSequence name();
        Color color();
        ArrayView.OfInt values();
        List<ItemView> children();
    }

    public static final class Node {
        public int value;
        public Node next;

        public Node() {}

        public Node(int value, Node next) {
            this.value = value;
            this.next = next;
        }
    }

    public interface NodeView {
        int value();
        NodeView next();
    }

    /** Appears only in later records of a log: its description must travel then. */
    public record Late(long stamp, String note) {}

    public interface LateView {
        long stamp();
        CharSequence note();
    }

    public record Blob(int generation, int[] data) {}

    public interface BlobView {
        int generation();
        ArrayView.OfInt data();
    }

    /** A small tree of items derived from {@code seed}: strings, an enum, int arrays, a list of records. */
    public static Item item(int seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Item> children = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            children.add(new Item(seed * 10 + i, "child-" + i + (i == 1 ? "\u00e9\u20ac" : ""), Color.values()[r.nextInt(3)],
                    r.ints(r.nextInt(4)).toArray(), List.of()));
        }
        return new Item(seed, "item-" + seed, Color.values()[Math.floorMod(seed, 3)], r.ints(3 + r.nextInt(5)).toArray(), children);
    }

    /** A linked list of {@code n} nodes holding 0..n-1. */
    public static Node list(int n) {
        Node head = null;
        for (int i = n - 1; i >= 0; i--) head = new Node(i, head);
        return head;
    }

    /** An int array of {@code n} elements, every one derived from the generation. */
    public static Blob blob(int generation, int n) {
        int[] d = new int[n];
        for (int i = 0; i < n; i++) d[i] = generation * 31 + i;
        return new Blob(generation, d);
    }

    /** Whether a view of a blob holds exactly what {@link #blob} made for its generation. */
    public static boolean intact(BlobView b, int n) {
        int g = b.generation();
        ArrayView.OfInt d = b.data();
        if (d.length() != n) return false;
        for (int i = 0; i < n; i++) if (d.get(i) != g * 31 + i) return false;
        return true;
    }

    /** A digest of every field of an item, walking at most {@code budget[0]} items (damaged files may hold cycles). */
    public static long digest(ItemView v, int[] budget) {
        if (v == null || budget[0]-- <= 0) return 7;
        long h = v.id();
        CharSequence name = v.name();
        h = h * 31 + (name == null ? 0 : name.toString().hashCode());
        h = h * 31 + (v.color() == null ? -1 : v.color().ordinal());
        ArrayView.OfInt values = v.values();
        if (values != null) for (int i = 0; i < values.length(); i++) h = h * 31 + values.get(i);
        List<ItemView> children = v.children();
        if (children != null) for (ItemView c : children) h = h * 31 + digest(c, budget);
        return h;
    }

    /** The same digest, of a heap item. */
    public static long digest(Item v) {
        if (v == null) return 7;
        long h = v.id();
        h = h * 31 + (v.name() == null ? 0 : v.name().hashCode());
        h = h * 31 + (v.color() == null ? -1 : v.color().ordinal());
        if (v.values() != null) for (int x : v.values()) h = h * 31 + x;
        if (v.children() != null) for (Item c : v.children()) h = h * 31 + digest(c);
        return h;
    }

    public static long digest(ItemView v) {
        return digest(v, new int[] {10_000});
    }

    /**
     * A sparse graph file whose header claims a message of {@link dev.verbatim.wire.MessageDescriptor#MAX_MESSAGE_BYTES}
     * (2 GiB): a reader must refuse it from its first 32 bytes, without mapping or reading the rest.
     */
    public static java.nio.file.Path hugeSparseGraphFile(java.nio.file.Path huge) throws java.io.IOException {
        long claimed = dev.verbatim.wire.MessageDescriptor.MAX_MESSAGE_BYTES;
        long end = WireFileDescriptor.recordLength(claimed, 0) + WireFileDescriptor.FILE_HEADER_LENGTH;
        try (java.io.RandomAccessFile r = new java.io.RandomAccessFile(huge.toFile(), "rw")) {
            r.setLength(end);
            java.lang.foreign.MemorySegment h = java.lang.foreign.MemorySegment.ofArray(new byte[32]);
            h.set(WireFileDescriptor.U32, WireFileDescriptor.MAGIC_OFFSET, WireFileDescriptor.MAGIC);
            h.set(WireFileDescriptor.U8, WireFileDescriptor.FILE_VERSION_OFFSET, (byte) WireFileDescriptor.FILE_VERSION);
            h.set(WireFileDescriptor.U8, WireFileDescriptor.KIND_OFFSET, (byte) WireFileDescriptor.KIND_GRAPH);
            h.set(WireFileDescriptor.U64, WireFileDescriptor.END_OFFSET, end);
            h.set(WireFileDescriptor.U32, WireFileDescriptor.FILE_HEADER_LENGTH + WireFileDescriptor.MESSAGE_LENGTH_OFFSET,
                    (int) claimed);
            r.write(h.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        return huge;
    }
}
