package dev.verbatim.objects.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static dev.verbatim.objects.internal.ReferenceDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** The reference's layout, pinned (docs/objects.md §1): changing a number breaks every other base. */
class ReferenceDescriptorTest {
    @Test
    void theLayoutKeepsItsOffsetsAndLimits() {
        assertArrayEquals(new int[] {0, 8, 12, 16, 24, 26, 28, 32}, new int[] {OWNER, ID, FLAGS, WEIGHT, ADDRESSES, INTERFACES,
                RESERVED, FIXED});
        assertArrayEquals(new int[] {8, 32, 1024}, new int[] {MAX_ADDRESSES, MAX_INTERFACES, MAX_STRING});
    }

    @Test
    void aReferenceIsWrittenFieldByFieldAndReadBackWhole() {
        Reference r = new Reference(0x1122334455667788L, -2, 1L << 40, List.of("shm:a", "tcp://h:1"), List.of("x.Counter"));
        byte[] b = encode(r);
        MemorySegment m = MemorySegment.ofArray(b);
        assertEquals(0x1122334455667788L, m.get(ValueLayout.JAVA_LONG_UNALIGNED, OWNER));
        assertEquals(-2, m.get(ValueLayout.JAVA_INT_UNALIGNED, ID), "ids are u32");
        assertEquals(1L << 40, m.get(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT));
        assertEquals(2, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES));
        assertEquals(1, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES));
        assertEquals(5, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, FIXED), "each string: its u16 length, then its bytes");
        assertEquals(FIXED + 2 + 5 + 2 + 9 + 2 + 9, b.length, "nothing after the last string");
        assertEquals(r, decode(m));
        assertEquals(Reference.home(5, 3, 0), decode(MemorySegment.ofArray(encode(Reference.home(5, 3, 0)))));
    }

    @Test
    void tooManyAddressesOrInterfacesOrATooLongStringAreRefused() {
        byte[] b = encode(new Reference(1, 1, 1, List.of("a"), List.of()));
        MemorySegment m = MemorySegment.ofArray(b);
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES, (short) (MAX_ADDRESSES + 1));
        assertThrows(IllegalArgumentException.class, () -> decode(m));
        byte[] c = encode(new Reference(1, 1, 1, List.of(), List.of("x".repeat(MAX_STRING + 1))));
        assertThrows(IllegalArgumentException.class, () -> decode(MemorySegment.ofArray(c)));
    }
}
