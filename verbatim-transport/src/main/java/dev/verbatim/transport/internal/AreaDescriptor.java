package dev.verbatim.transport.internal;

/**
 * The layout of a receive window: a control block, then {@code areaCount} receive areas of
 * {@code areaSize} bytes. On {@code shm} this is a file in the {@link ShmDirectory} created by the
 * receiver and mapped by both sides; on {@code tcp} it is the receiver's private off-heap memory
 * into which the connection's reader copies frames. All integers little-endian.
 *
 * <pre>
 *  0        8        12          16         24           32
 *  +--------+--------+-----------+----------+------------+------ ... -+
 *  | magic  | version| areaCount | areaSize | owner pid  |            |   header, written once by the receiver
 *  +--------+--------+-----------+----------+------------+------ ... -+
 *  32: receiverNeverParks i32 (1: the receiver only spins, so the sender need not check receiverParked)
 *  64: receiverParked i32     (futex word: 1 while the receiver sleeps; the sender clears it and wakes)
 *  128: senderParked i32      (futex word: 1 while the sender waits for a free area; the receiver wakes)
 *  192: areaState i32 x 64    (FREE = 0: the sender may take it; SENDER = 1: the sender writes there)
 *  4096: area 0 | area 1 | ... | area (areaCount - 1)
 * </pre>
 *
 * <p>An area holds records, 8-byte aligned. A record is an 8-byte header word then its payload:
 *
 * <pre>
 *  0              4      5      8
 *  +--------------+------+------+------------------------+-- pad to 8 --+
 *  | frame length | type | 0    | payload (length - 8)   |              |
 *  +--------------+------+------+------------------------+--------------+
 * </pre>
 *
 * The header is written last, as one 64-bit store with release semantics, and read with acquire;
 * zero means "nothing yet". Before a record is published the header slot after it is zeroed, so
 * the word at the reader's position is always zero or a record of the current use of the area.
 * The last {@link #TAIL_RESERVE} bytes of an area are kept for the {@code NEXT} record that sends
 * the reader to the next area the sender took; an area never ends without one.
 *
 * <p>Area ownership alternates, so each state word has one writer at a time: the sender turns a
 * {@code FREE} area to {@code SENDER} when it takes it; the receiver turns it back to {@code FREE}
 * once the sender left it (a {@code NEXT} record) and every delivery in it was released.
 */
public final class AreaDescriptor {
    private AreaDescriptor() {}

    public static final long MAGIC = 0x4145_5241_5442_5256L; // "VRBTAREA" little-endian
    public static final int VERSION = 1;

    public static final long MAGIC_OFFSET = 0;
    public static final long VERSION_OFFSET = 8;
    public static final long AREA_COUNT_OFFSET = 12;
    public static final long AREA_SIZE_OFFSET = 16;
    public static final long OWNER_PID_OFFSET = 24;
    public static final long RECEIVER_NEVER_PARKS_OFFSET = 32;
    public static final long RECEIVER_PARKED_OFFSET = 64;
    public static final long SENDER_PARKED_OFFSET = 128;
    public static final long AREA_STATE_OFFSET = 192;
    public static final long CONTROL_SIZE = 4096;

    public static final int STATE_FREE = 0;
    public static final int STATE_SENDER = 1;

    public static final int HEADER = 8;
    public static final int TAIL_RESERVE = 16;

    public static final int TYPE_DATA = 1;
    public static final int TYPE_REGION = 2;
    public static final int TYPE_SKIP = 3;
    public static final int TYPE_NEXT = 4;

    /** Total bytes of a window. */
    public static long windowSize(int areaCount, int areaSize) {
        return CONTROL_SIZE + (long) areaCount * areaSize;
    }

    public static long areaBase(int area, int areaSize) {
        return CONTROL_SIZE + (long) area * areaSize;
    }

    public static long areaStateOffset(int area) {
        return AREA_STATE_OFFSET + 4L * area;
    }

    /** The largest payload of a record in an area of {@code areaSize} bytes. */
    public static int maxPayload(int areaSize) {
        return areaSize - HEADER - TAIL_RESERVE;
    }

    /** Bytes a record with {@code payload} bytes takes, header and padding included. */
    public static long recordSpan(long payload) {
        return (HEADER + payload + 7) & ~7L;
    }

    /** The header word: frame length (header + payload) in the low 32 bits, type in bits 32-39. */
    public static long headerWord(int type, long payload) {
        return ((long) type << 32) | (HEADER + payload);
    }

    public static int frameLength(long word) {
        return (int) word;
    }

    public static int type(long word) {
        return (int) (word >>> 32) & 0xFF;
    }

    /** Zero if the bits above the type byte are clear, as every valid header word has them. */
    public static long reservedBits(long word) {
        return word >>> 40;
    }

    /** Checks a window's geometry; returns a message naming what is wrong, or null. */
    public static String checkGeometry(int areaCount, int areaSize) {
        if (areaCount < 2 || areaCount > 64) {
            return "area count " + areaCount + " is not between 2 and 64";
        }
        if (areaSize < 64 * 1024 || areaSize > (1 << 30) || areaSize % 4096 != 0) {
            return "area size " + areaSize + " is not a multiple of 4096 between 64 KiB and 1 GiB";
        }
        return null;
    }
}
