package dev.verbatim.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Strings and small string-heavy messages through the fast paths: strings of every edge length and coder (Latin-1
 * when every char fits a byte, UTF-16 at the first one beyond U+00FF) with zeroed padding, strings and value types
 * still shared (placed once, whatever the references to them: message sizes do not grow), maps keyed through the
 * writer's reused scratch arrays, runs of strings validated in one loop, string fields of views read in place, and
 * short strings materialized through a scratch array. Each test names what breaks when a fast path does.
 */
class StringFastPathTest {
    static final WireWriter W = new WireWriter();
    static final WireReader R = new WireReader();

    public record Texts(List<String> items) {}

    public record Pair(String a, String b) {}

    public record Stamped(Instant at, Instant again, UUID id, UUID same) {}

    public record Keyed(Map<String, String> small, Map<String, String> large, Map<String, Integer> other) {}

    static Message roundTrip(Object o) { return R.validate(MemorySegment.ofArray(W.toByteArray(o))); }

    static String repeat(char c, int n) { return String.valueOf(c).repeat(n); }

    /** A length around which long strings are cut: the edges of any chunked copy (the materializer's, a writer's). */
    static final int K = 1024;

    /** Strings around every edge of the fast path: empty, each padding length, chunk boundaries, a late wide char. */
    static List<String> edgeStrings() {
        List<String> l = new ArrayList<>();
        for (int n = 0; n <= 17; n++) l.add("abcdefghijklmnopq".substring(0, n));
        l.add("caf\u00e9 \u00ff");                                   // Latin-1 beyond ASCII
        l.add("\u20ac");                                             // one wide char
        l.add("x\u4e2d\u6587");                                      // wide after a narrow one
        l.add("\ud83d\ude00 pair");                                   // a surrogate pair
        l.add("lone \ud800 high, lone \udc00 low");                   // unpaired surrogates, kept as written
        l.add(repeat('a', K));                                      // exactly one chunk
        l.add(repeat('b', K + 1));                                  // one char into the second chunk
        l.add(repeat('c', 3 * K + 5));                              // several chunks
        l.add(repeat('d', K + 500) + "\u0100");                     // Latin-1 for a chunk and more, then wide
        l.add("\u0100" + repeat('e', 2 * K + 3));                   // wide at once, several chunks of UTF-16
        return l;
    }

    @Test
    void everyStringReadsBackAsWrittenThroughViewsAndMaterialization() {
        List<String> strings = edgeStrings();
        Message m = roundTrip(new Texts(strings));
        assertEquals(strings, m.materialize(Texts.class).items());
        for (int i = 0; i < strings.size(); i++) {
            String s = strings.get(i);
            long o = m.objectOffset(i + 2, Shape.STRING_SHAPE); // root, list, then the strings in order
            int header = m.seg.get(MessageDescriptor.I32, o);
            boolean wide = s.chars().anyMatch(c -> c > 0xFF);
            assertEquals(wide, header < 0, "coder of string " + i + " (" + s.length() + " chars)");
            assertEquals(s.length(), header & ~MessageDescriptor.STRING_UTF16_BIT, "length of string " + i);
            assertEquals(s, HeapValues.readString(m, o), "string " + i);
        }
    }

    @Test
    void paddingAfterEveryStringIsZeroEvenOverGarbage() {
        Texts t = new Texts(edgeStrings());
        byte[] clean = W.toByteArray(t);
        Message m = R.validate(MemorySegment.ofArray(clean));
        for (int i = 2; i < m.objectCount(); i++) {
            long o = m.objectOffset(i, Shape.STRING_SHAPE);
            int h = m.seg.get(MessageDescriptor.I32, o);
            long end = o + MessageDescriptor.STRING_DATA_OFFSET + (long) (h & ~MessageDescriptor.STRING_UTF16_BIT) * (h < 0 ? 2 : 1);
            for (long p = end; p < MessageDescriptor.align8(end); p++) {
                assertEquals(0, clean[(int) p], "padding byte " + p + " after string " + (i - 2));
            }
        }
        MemorySegment dirty = Arena.ofAuto().allocate(clean.length + 64);
        dirty.fill((byte) 0xA5);
        long n = W.write(t, dirty, 0);
        assertEquals(clean.length, n);
        assertArrayEquals(clean, dirty.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                "the same bytes whatever the destination held: padding zeroed, nothing stale");
    }

    @Test
    void aMessageEndingInAStringFitsExactlyAndOneByteLessDoesNot() {
        for (String s : edgeStrings()) {
            Pair p = new Pair("k", s);
            long size = W.sizeOf(p);
            MemorySegment exact = Arena.ofAuto().allocate(size);
            assertEquals(size, W.tryWrite(p, exact, 0), "fits exactly: " + s.length() + " chars");
            assertEquals(p, R.validate(exact).materialize(Pair.class));
            // The tables follow the objects, so cutting the segment short fails in the string or in the tables.
            assertEquals(-1, W.tryWrite(p, Arena.ofAuto().allocate(size - 1), 0), "one byte short: " + s.length() + " chars");
            // A segment cut at the string's own end: the string's padding or the tables do not fit.
            long stringEnd = size - 8L * 3 - 8L * 1; // three objects' entries, one type
            assertEquals(-1, W.tryWrite(p, Arena.ofAuto().allocate(stringEnd), 0));
        }
    }

    @Test
    void oneStringReferencedTwiceIsWrittenOnceAndMaterializesAsOneString() {
        String s = "shared";
        Message m = roundTrip(new Pair(s, s));
        assertEquals(2, m.objectCount(), "a string is placed once, whatever the references to it: root and one string");
        Pair back = m.materialize(Pair.class);
        assertEquals(s, back.a());
        assertSame(back.a(), back.b(), "one string object on the wire, one String out");
        Pair distinct = new Pair(s, new String(s));
        assertEquals(3, roundTrip(distinct).objectCount(), "two equal strings that are distinct objects stay two");
        assertNotSame(roundTrip(distinct).materialize(Pair.class).a(), roundTrip(distinct).materialize(Pair.class).b());
        assertEquals(W.sizeOf(new Pair(s, s)) + 8 + 16, W.sizeOf(distinct), "the second object costs its entry and bytes");
    }

    @Test
    void oneValueReferencedTwiceIsWrittenOnce() {
        Instant at = Instant.ofEpochSecond(1_764_057_600L, 5);
        UUID id = new UUID(1, 2);
        Message m = roundTrip(new Stamped(at, at, id, id));
        assertEquals(3, m.objectCount(), "root, one instant, one UUID");
        Stamped back = m.materialize(Stamped.class);
        assertEquals(new Stamped(at, at, id, id), back);
        assertSame(back.at(), back.again());
        assertSame(back.id(), back.same());
    }

    @Test
    void aStringReferencedAThousandTimesIsWrittenOnceLongOrShort() {
        for (int chars : new int[] {1024, 1, 7, 100}) {
            String s = repeat('k', chars);
            List<String> many = new ArrayList<>();
            for (int i = 0; i < 1000; i++) many.add(s);
            Texts t = new Texts(many);
            byte[] b = W.toByteArray(t);
            long one = W.sizeOf(new Texts(List.of(s)));
            assertTrue(b.length <= one + 4L * 999 + 8, chars + "-char string, 1000 references: " + b.length
                    + " bytes, more than the message of one reference (" + one + ") and 999 more references");
            assertTrue(b.length <= chars + 4L * 1000 + 128, "~the string once and 1000 references: " + b.length);
            Message m = R.validate(MemorySegment.ofArray(b));
            assertEquals(3, m.objectCount(), "root, list, one string");
            List<String> back = m.materialize(Texts.class).items();
            assertEquals(many, back);
            for (String x : back) assertSame(back.get(0), x);
        }
    }

    @Test
    void mapsOfEverySizeInOneMessageKeepTheirKeysValuesAndOrder() {
        Map<String, String> small = new LinkedHashMap<>();
        small.put("b", "2");
        small.put("a", "1");
        Map<String, String> large = new LinkedHashMap<>();
        for (int i = 40; i > 0; i--) large.put("key" + i, "v" + i); // grows the writer's key scratch past 16
        Map<String, Integer> other = new LinkedHashMap<>();
        other.put("z", 26);
        other.put("y", 25);
        other.put("x", 24);
        Keyed k = new Keyed(small, large, other);
        Keyed back = roundTrip(k).materialize(Keyed.class);
        assertEquals(List.copyOf(small.entrySet()), List.copyOf(back.small().entrySet()));
        assertEquals(List.copyOf(large.entrySet()), List.copyOf(back.large().entrySet()));
        assertEquals(List.copyOf(other.entrySet()), List.copyOf(back.other().entrySet()));
        assertEquals(k, roundTrip(k).materialize(Keyed.class), "again, with the scratch arrays reused");
    }

    @Test
    void aStringInARunThatOverrunsTheTablesIsRefused() {
        byte[] b = W.toByteArray(new Texts(List.of("aa", "bbbbbbbbbbb", "c")));
        Message m = R.validate(MemorySegment.ofArray(b));
        long second = m.objectOffset(3, Shape.STRING_SHAPE);
        MemorySegment.ofArray(b).set(MessageDescriptor.I32, second, 1_000);
        WireFormatException e = assertThrows(WireFormatException.class, () -> R.validate(MemorySegment.ofArray(b)));
        assertTrue(e.getMessage().contains("string overruns the tables"), e.getMessage());
        MemorySegment.ofArray(b).set(MessageDescriptor.I32, second, 3); // shorter: the next object is not where its entry says
        e = assertThrows(WireFormatException.class, () -> R.validate(MemorySegment.ofArray(b)));
        assertTrue(e.getMessage().contains("object table entry does not match the layout"), e.getMessage());
    }

    public interface PairView { CharSequence a(); CharSequence b(); }

    @Test
    void stringFieldsOfAViewReadInPlaceNullIncludedAndRecheckTheirReference() {
        byte[] b = W.toByteArray(new Pair("left \u20ac", null));
        Message m = R.validate(MemorySegment.ofArray(b));
        PairView v = m.view(PairView.class);
        assertEquals("left \u20ac", v.a().toString());
        assertNull(v.b());
        assertSame(v.getClass(), R.validate(MemorySegment.ofArray(b)).view(PairView.class).getClass(), "one view class, reused");
        MemorySegment.ofArray(b).set(MessageDescriptor.I32, m.objectOffset(0, 8), 7); // field a (offset 0) names object 7
        WireFormatException e = assertThrows(WireFormatException.class, v::a);
        assertTrue(e.getMessage().contains("changed after validation"), e.getMessage());
    }

    @Test
    void shortStringsOfFallingLengthsMaterializeWithoutStaleBytes() {
        List<String> l = List.of("abcdefghijklmnopqrstuvwxyz", "xyz", "", "q", repeat('m', 64), repeat('n', 65), "\u00e9t\u00e9");
        assertEquals(l, roundTrip(new Texts(l)).materialize(Texts.class).items());
    }

    /** The object bytes of {@code s} as the format defines them (length word, Latin-1 or UTF-16 chars, zero padding to 8). */
    static byte[] expectedString(CharSequence s) {
        boolean latin1 = s.chars().allMatch(c -> c <= 0xFF);
        int n = s.length(), data = latin1 ? n : 2 * n;
        byte[] b = new byte[(MessageDescriptor.STRING_DATA_OFFSET + data + 7) & ~7];
        int h = latin1 ? n : n | MessageDescriptor.STRING_UTF16_BIT;
        for (int k = 0; k < 4; k++) b[k] = (byte) (h >>> (8 * k));
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (latin1) b[4 + i] = (byte) c;
            else {
                b[4 + 2 * i] = (byte) c;
                b[5 + 2 * i] = (byte) (c >>> 8);
            }
        }
        return b;
    }

    /**
     * The word-at-a-time writer of short strings ({@link LeafEncoding#writeString}): every length around its bound, ASCII,
     * Latin-1 beyond ASCII, a wide char at each position (it falls back to UTF-16 over the words it wrote), a
     * {@code StringBuilder} as well as a {@code String}, over garbage, with the writer's padding after it: the bytes must be
     * exactly the format's, and no byte after the object's padded end may be touched.
     */
    @Test
    void shortStringsWrittenAWordAtATimeHaveTheFormatsBytes() {
        MemorySegment seg = MemorySegment.ofArray(new byte[4096]);
        for (int n = 0; n <= LeafEncoding.SHORT_STRING + 3; n++) {
            List<CharSequence> cases = new ArrayList<>();
            StringBuilder ascii = new StringBuilder(), high = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) ('a' + i % 26));
                high.append((char) (0x80 + (i * 37) % 0x80));
            }
            cases.add(ascii.toString());
            cases.add(high.toString());
            cases.add(new StringBuilder(high));
            for (int w = 0; w < n; w++) {
                StringBuilder wide = new StringBuilder(ascii);
                wide.setCharAt(w, w % 2 == 0 ? '\u0100' : '\u4e2d');
                cases.add(wide.toString());
            }
            for (CharSequence s : cases) {
                for (long pos : new long[] {0, 8, 48}) {
                    seg.fill((byte) 0x5A);
                    byte[] expected = expectedString(s);
                    long r = LeafEncoding.writeString(s, seg, pos, seg.byteSize());
                    assertTrue(r > 0 && ((r + 7) & ~7) == expected.length, "size " + r + " for " + n + " chars: " + s);
                    for (long k = pos + r; k < pos + expected.length; k++) seg.set(ValueLayout.JAVA_BYTE, k, (byte) 0); // the writer's padding
                    byte[] got = seg.asSlice(pos, expected.length).toArray(ValueLayout.JAVA_BYTE);
                    assertArrayEquals(expected, got, "bytes of " + n + " chars at " + pos + ": " + s);
                    assertEquals((byte) 0x5A, seg.get(ValueLayout.JAVA_BYTE, pos + expected.length), "a byte past the object");
                    if (pos > 0) assertEquals((byte) 0x5A, seg.get(ValueLayout.JAVA_BYTE, pos - 1), "a byte before the object");
                    long unpadded = MessageDescriptor.STRING_DATA_OFFSET + (s.chars().allMatch(c -> c <= 0xFF) ? n : 2L * n);
                    assertEquals(-1, LeafEncoding.writeString(s, seg, pos, pos + unpadded - 1), "one byte short: " + s);
                    long exact = LeafEncoding.writeString(s, seg, pos, pos + unpadded);
                    assertTrue(exact == unpadded || exact == expected.length && expected.length == unpadded, "fits its chars exactly: " + s);
                }
            }
        }
        List<String> all = new ArrayList<>();
        for (int n = 0; n <= LeafEncoding.SHORT_STRING + 3; n++) all.add(repeat('\u00e9', n));
        all.add(repeat('a', 63) + "\u0100");
        assertEquals(all, roundTrip(new Texts(all)).materialize(Texts.class).items());
    }

    public interface TextsView { List<CharSequence> items(); }

    /**
     * Short Latin-1 strings read through views in words ({@link ShortStringView}): every length up to its bound and
     * past it, chars beyond ASCII, a wide string, the last string before the tables; each as the chars written, with
     * {@code String}'s equality, hash code and index checks.
     */
    @Test
    void shortStringsReadThroughViewsInWordsAreTheStringsWritten() {
        List<String> strings = new ArrayList<>();
        for (int n = 0; n <= ShortStringView.MAX + 2; n++) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < n; i++) b.append((char) (i % 3 == 2 ? 0xE0 + i : 'A' + i)); // Latin-1 beyond ASCII too
            strings.add(b.toString());
        }
        strings.add("\u00ff\u00fe\u0080");
        strings.add("wide \u20ac");
        strings.add("k"); // the last object: its words end at the tables
        List<CharSequence> read = roundTrip(new Texts(strings)).view(TextsView.class).items();
        assertEquals(strings.size(), read.size());
        for (int i = 0; i < strings.size(); i++) {
            String s = strings.get(i);
            CharSequence v = read.get(i);
            if (s.length() <= ShortStringView.MAX && s.chars().allMatch(c -> c <= 0xFF)) {
                assertInstanceOf(ShortStringView.class, v, "string " + i + " read in words");
            }
            assertEquals(s.length(), v.length(), "length of " + s);
            for (int k = 0; k < s.length(); k++) assertEquals(s.charAt(k), v.charAt(k), "char " + k + " of " + s);
            assertEquals(s, v.toString());
            assertEquals(s.hashCode(), v.hashCode(), "hash code of " + s);
            assertEquals(v, s);
            assertNotEquals(v, s + "x");
            if (!s.isEmpty()) assertEquals(s.substring(1), v.subSequence(1, s.length()).toString());
            assertThrows(IndexOutOfBoundsException.class, () -> v.charAt(s.length()));
            assertThrows(IndexOutOfBoundsException.class, () -> v.charAt(-1));
        }
    }

    /** A short string's length changed after validation past the tables is refused, not read beyond the message. */
    @Test
    void aShortStringLengthChangedAfterValidationIsRefused() {
        byte[] b = W.toByteArray(new Texts(List.of("abc", "z")));
        Message m = R.validate(MemorySegment.ofArray(b));
        TextsView v = m.view(TextsView.class);
        long last = m.objectOffset(3, Shape.STRING_SHAPE);
        for (int n : new int[] {5, ShortStringView.MAX, ShortStringView.MAX + 1, 1000}) {
            MemorySegment.ofArray(b).set(MessageDescriptor.I32, last, n);
            WireFormatException e = assertThrows(WireFormatException.class, () -> v.items().get(1), "length " + n);
            assertTrue(e.getMessage().contains("changed after validation"), e.getMessage());
        }
        MemorySegment.ofArray(b).set(MessageDescriptor.I32, last, 4); // still inside its padded words: read, no overrun
        assertEquals(4, v.items().get(1).length());
    }

    /**
     * The writer finds a message's first objects by scanning ({@link IdentityIndex#LINEAR}) and the rest by hashing:
     * objects shared while the message is small, when it outgrows the scan, and long after, each written once, in
     * messages of every size around the switch, one writer reused (a scan must not see the last message's objects).
     */
    @Test
    void sharedObjectsAreWrittenOnceBeforeAndAfterTheWriterStopsScanning() {
        WireWriter w = new WireWriter();
        String a = new String("shared-a"), b = new String("shared-b");
        for (int distinct = 0; distinct <= 3 * IdentityIndex.LINEAR; distinct++) {
            List<String> items = new ArrayList<>();
            items.add(a);
            for (int i = 0; i < distinct; i++) {
                items.add(new String("d" + i));
                items.add(i % 2 == 0 ? a : b);
            }
            items.add(b);
            items.add(a);
            byte[] bytes = new byte[(int) w.sizeOf(new Texts(items))];
            assertEquals(bytes.length, w.write(new Texts(items), MemorySegment.ofArray(bytes), 0));
            Message m = R.validate(MemorySegment.ofArray(bytes));
            assertEquals(2 + distinct + 2, m.objectCount(), "root, list, a, b and the distinct strings, once each: " + distinct);
            List<String> back = m.materialize(Texts.class).items();
            assertEquals(items, back);
            for (int i = 0; i < items.size(); i++) {
                assertSame(items.get(i) == a ? back.get(0) : items.get(i) == b ? back.get(back.size() - 2) : back.get(i), back.get(i),
                        "item " + i + " of " + items.size());
            }
        }
    }
}
