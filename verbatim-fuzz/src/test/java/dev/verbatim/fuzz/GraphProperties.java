package dev.verbatim.fuzz;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Properties of the writer, validator, views and materializer over random graphs of {@link GraphFamily} types:
 * every primitive kind, boxes, strings (ASCII, Latin-1, UTF-16 with surrogate pairs), enums, primitive arrays,
 * arrays and lists of references, records, a sealed hierarchy, a mutable class, nulls, sharing and cycles.
 *
 * <p>They live in the fuzz module's tests because they compare graphs through the one {@link GraphOracle}, which
 * the wire module's tests cannot reach (fuzz depends on wire); they run in the same build right after wire's.
 *
 * <p>A graph is built from a list of integer choices (see {@link GraphFamily.Builder}); jqwik shrinks a failing
 * list towards fewer, smaller choices, which builds a smaller graph, and reports the list.
 */
class GraphProperties {
    private static final int BUDGET = 40;
    private final WireWriter writer = new WireWriter();
    private final WireReader reader = new WireReader();

    /**
     * Uniform choices and list lengths: jqwik's default bias towards small numbers and short lists would make nine
     * graphs in ten a handful of objects, mostly nulls (choice 0), with little sharing.
     */
    @Provide
    Arbitrary<List<Integer>> choices() {
        return Arbitraries.integers().withDistribution(RandomDistribution.uniform()).list().ofMaxSize(400)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    static Object graph(List<Integer> choices) {
        return new GraphFamily.Builder(choices, BUDGET).root();
    }

    private Message validate(byte[] bytes) {
        Message m = reader.validate(MemorySegment.ofArray(bytes));
        assertEquals(bytes.length, m.byteSize());
        return m;
    }

    @Property(tries = 500)
    void materializedGraphIsIsomorphicToTheOriginal(@ForAll("choices") List<Integer> choices) {
        Object root = graph(choices);
        byte[] bytes = writer.toByteArray(root);
        Message m = validate(bytes);
        assertEquals(GraphOracle.countObjects(root), m.objectCount(), "one object on the wire per distinct object in the graph");
        assertEquals(Schema.fingerprint(root.getClass()), m.rootFingerprint());
        Statistics.label("root").collect(root.getClass().getSimpleName());
        Statistics.label("objects").collect(m.objectCount() < 5 ? "< 5" : m.objectCount() < 20 ? "5-19" : m.objectCount() < 60 ? "20-59" : ">= 60");
        Statistics.label("shared or cyclic").collect(GraphOracle.countObjects(root) < GraphOracle.countReferences(root));
        Object back = m.materialize(root.getClass());
        assertNotSame(root, back);
        GraphOracle.assertSameGraph(root, back);
        if (root instanceof GraphFamily.Shape) {
            // A sealed case as the root can also be read as its sealed interface.
            GraphOracle.assertSameGraph(root, m.materialize(GraphFamily.Shape.class));
        }
    }

    @Property(tries = 500)
    void viewsReadWhatWasWritten(@ForAll("choices") List<Integer> choices) {
        Object root = graph(choices);
        Message m = validate(writer.toByteArray(root));
        Class<?> twin = GraphFamily.twinOf(root.getClass());
        assertEquals(Schema.fingerprint(root.getClass()), Schema.fingerprint(twin), "a record and its view twin share a fingerprint");
        GraphOracle.assertViewsRead(root, m.view(twin));
        Class<?> viewType = GraphFamily.viewTypeOf(root.getClass());
        Object view = m.view(viewType);
        assertNotNull(view);
        GraphOracle.assertViewsRead(root, view);
        if (root instanceof GraphFamily.Arrays8) GraphOracle.assertViewsRead(root, m.view(GraphFamily.Arrays8OtherView.class));
        // Two views of one message read the same graph (views hold no state of their own).
        GraphOracle.assertViewsRead(root, m.view(viewType));
    }

    @Property(tries = 200)
    void sizeOfIsExactlyWhatWriteWritesAndNothingElseIsTouched(@ForAll("choices") List<Integer> choices,
                                                               @ForAll @IntRange(min = 0, max = 17) int offset) {
        Object root = graph(choices);
        long size = writer.sizeOf(root);
        byte[] expected = writer.toByteArray(root);
        assertEquals(size, expected.length);
        byte[] dst = new byte[(int) size + offset + 16];
        Arrays.fill(dst, (byte) 0xA5); // stale bytes: none may leak into the message (padding, layout holes)
        long written = writer.write(root, MemorySegment.ofArray(dst), offset);
        assertEquals(size, written);
        assertArrayEquals(expected, Arrays.copyOfRange(dst, offset, offset + (int) size), "a message does not depend on where it is written");
        for (int i = 0; i < offset; i++) assertEquals((byte) 0xA5, dst[i], "byte " + i + " before the message");
        for (int i = offset + (int) size; i < dst.length; i++) assertEquals((byte) 0xA5, dst[i], "byte " + i + " after the message");
        assertThrows(IndexOutOfBoundsException.class, () -> writer.write(root, MemorySegment.ofArray(new byte[(int) size - 1]), 0),
                "a destination one byte short is refused");
    }

    @Property(tries = 200)
    void tryWriteWritesWhatFitsAndSaysWhatDoesNot(@ForAll("choices") List<Integer> choices,
                                                 @ForAll @IntRange(min = 0, max = 17) int offset,
                                                 @ForAll @IntRange(min = 1, max = 64) int shortBy) {
        Object root = graph(choices);
        byte[] expected = writer.toByteArray(root);
        int size = expected.length;
        byte[] exact = new byte[offset + size];
        assertEquals(size, writer.tryWrite(root, MemorySegment.ofArray(exact), offset), "a destination of exactly the size");
        assertArrayEquals(expected, Arrays.copyOfRange(exact, offset, offset + size));
        byte[] tooSmall = new byte[offset + Math.max(0, size - shortBy)];
        assertEquals(-1, writer.tryWrite(root, MemorySegment.ofArray(tooSmall), offset), "a destination " + shortBy + " bytes short");
        // A failed attempt leaves no state behind: the next write is the same message.
        assertArrayEquals(expected, writer.toByteArray(root), "after a write that did not fit");
    }

    @Property(tries = 200)
    void writingIsDeterministic(@ForAll("choices") List<Integer> first, @ForAll("choices") List<Integer> other) {
        Object root = graph(first);
        byte[] a = writer.toByteArray(root);
        byte[] b = writer.toByteArray(root);
        assertArrayEquals(a, b, "the same graph twice");
        writer.toByteArray(graph(other)); // scratch state left by another graph must not matter
        assertArrayEquals(a, writer.toByteArray(root), "after writing another graph");
        assertArrayEquals(a, new WireWriter().toByteArray(root), "with a fresh writer");
        // The materialized copy has the same structure and sharing, so it is written to the same bytes.
        Object back = reader.validate(MemorySegment.ofArray(a)).materialize(root.getClass());
        assertArrayEquals(a, writer.toByteArray(back), "the materialized copy writes the same bytes");
    }

    @Property(tries = 100)
    void limitsAreEnforcedExactly(@ForAll("choices") List<Integer> choices) {
        Object root = graph(choices);
        byte[] bytes = writer.toByteArray(root);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        Message m = new WireReader(WireLimits.DEFAULT.withMaxMessageBytes(bytes.length).withMaxObjects(GraphOracle.countObjects(root)))
                .validate(seg);
        assertEquals(GraphOracle.countObjects(root), m.objectCount());
        WireFormatException tooBig = assertThrows(WireFormatException.class,
                () -> new WireReader(WireLimits.DEFAULT.withMaxMessageBytes(bytes.length - 1)).validate(seg));
        assertEquals("message larger than the limit", tooBig.rule());
        if (m.objectCount() > 0) {
            WireFormatException tooMany = assertThrows(WireFormatException.class,
                    () -> new WireReader(WireLimits.DEFAULT.withMaxObjects(m.objectCount() - 1)).validate(seg));
            assertEquals("too many objects", tooMany.rule());
        }
    }
}
