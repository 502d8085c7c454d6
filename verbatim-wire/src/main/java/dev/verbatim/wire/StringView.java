package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * A string read where it landed: {@code charAt} decodes Latin-1 or UTF-16LE in place, no copy until
 * {@link #toString()}. Equality and hash code follow {@code String}'s for the same characters.
 */
final class StringView implements CharSequence {
    private final MemorySegment seg;
    private final long data;
    private final int length;
    private final boolean utf16;

    StringView(MemorySegment seg, long data, int header) {
        this.seg = seg;
        this.data = data;
        this.length = header & ~STRING_UTF16_BIT;
        this.utf16 = (header & STRING_UTF16_BIT) != 0;
    }

    @Override public int length() { return length; }

    @Override public char charAt(int index) {
        java.util.Objects.checkIndex(index, length);
        return utf16 ? seg.get(U16, data + 2L * index) : (char) (seg.get(I8, data + index) & 0xFF);
    }

    @Override public CharSequence subSequence(int start, int end) { return toString().substring(start, end); }

    @Override public String toString() { return read(seg, data, length, utf16); }

    /** Decodes exactly: every char as written, unpaired surrogates included (a charset decoder would replace them). */
    static String read(MemorySegment seg, long data, int length, boolean utf16) {
        if (utf16) return new String(seg.asSlice(data, 2L * length).toArray(U16));
        return new String(seg.asSlice(data, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    @Override public boolean equals(Object o) {
        return sameChars(this, o);
    }

    @Override public int hashCode() {
        return hash(this);
    }

    /** A string view's equality (this one's and {@link ShortStringView}'s): the same chars as another char sequence. */
    static boolean sameChars(CharSequence view, Object o) {
        int length = view.length();
        if (!(o instanceof CharSequence cs) || cs.length() != length) return false;
        for (int i = 0; i < length; i++) if (view.charAt(i) != cs.charAt(i)) return false;
        return true;
    }

    /** A string view's hash: {@link String#hashCode}'s, over its chars. */
    static int hash(CharSequence view) {
        int h = 0;
        for (int i = 0, n = view.length(); i < n; i++) h = 31 * h + view.charAt(i);
        return h;
    }
}
