package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * A short Latin-1 string read through a view: its object (length word and up to {@link #MAX} chars) is read in at most
 * three 8-byte words when the view's accessor returns it, and {@code charAt} then shifts a char out of a word. A
 * {@link StringView} pays a bounds-checked memory read per char; the strings of small payloads (symbols, names, keys)
 * are short, and a caller that reads one reads most of its chars. Like a {@link StringView}, it is never copied to a
 * {@code String} until {@link #toString()}; its chars are the ones in the message when the accessor read it (the
 * accessor reads the string again each time it is called, as every field read through a view). Like a read in place,
 * a char read after the memory was released (a closed file, a freed arena) fails with {@code IllegalStateException}:
 * each {@code charAt} checks that the segment's scope is alive (one field read, where a memory read checks bounds,
 * scope and owner thread). The owner thread of a confined arena's segment is checked when the accessor reads it.
 *
 * <p>Immutable; thread-safe. Equality and hash code follow {@code String}'s for the same characters.
 */
final class ShortStringView implements CharSequence {
    /** The most chars read this way: the length word and 20 chars fill three words. */
    static final int MAX = 20;

    /** The object's words: the length word and chars 0-3, then chars 4-11 and 12-19 (unread words are 0). */
    private final long w0, w1, w2;
    private final int length;
    /** The scope of the message's memory: chars are not read once it is closed. */
    private final MemorySegment.Scope scope;

    private ShortStringView(MemorySegment.Scope scope, long w0, long w1, long w2, int length) {
        this.scope = scope;
        this.w0 = w0;
        this.w1 = w1;
        this.w2 = w2;
        this.length = length;
    }

    /**
     * The string object at {@code o} (8-aligned in the message, of the string type: the caller checked) as a short
     * view, or null if it is UTF-16, longer than {@link #MAX} chars or does not fit before {@code tail} (the caller then
     * reads it the general way, which checks it again and fails as it should). Every word read lies before
     * {@code tail}: the object starts 8-aligned and its chars end before the tables, which start 8-aligned.
     */
    static ShortStringView read(MemorySegment seg, long o, long tail) {
        if (o + 8 > tail) return null;
        long w0 = seg.get(I64, o);
        int h = (int) w0; // the length word: a set UTF-16 bit makes it negative
        if (h < 0 || h > MAX || o + STRING_DATA_OFFSET + h > tail) return null;
        long w1 = h > 4 ? seg.get(I64, o + 8) : 0;
        long w2 = h > 12 ? seg.get(I64, o + 16) : 0;
        return new ShortStringView(seg.scope(), w0, w1, w2, h);
    }

    @Override public int length() { return length; }

    @Override public char charAt(int index) {
        java.util.Objects.checkIndex(index, length);
        if (!scope.isAlive()) throw new IllegalStateException("Already closed: the message's memory was released");
        int j = index + STRING_DATA_OFFSET; // the char's byte in the object
        long w = j < 8 ? w0 : j < 16 ? w1 : w2;
        return (char) ((w >>> ((j & 7) << 3)) & 0xFF);
    }

    @Override public CharSequence subSequence(int start, int end) { return toString().substring(start, end); }

    @Override public String toString() {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) charAt(i);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Override public boolean equals(Object o) {
        return StringView.sameChars(this, o);
    }

    @Override public int hashCode() {
        return StringView.hash(this);
    }
}
