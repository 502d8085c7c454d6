package dev.verbatim.objects.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an RPC {@code T_SHARED} value: a shared object's reference (docs/objects.md §1). All
 * integers little-endian.
 *
 * <pre>
 *  0             8        12       16             24        26         28         32
 *  +-------------+--------+--------+--------------+---------+----------+----------+----------------------
 *  | owner (u64) | id u32 | flags  | weight (u64) | naddr   | niface   | reserved | strings: naddr addresses,
 *  |             |        | u32    |              | u16     | u16      | u32 = 0  | then niface interface
 *  +-------------+--------+--------+--------------+---------+----------+----------+ names, each [u16 n][n bytes UTF-8]
 * </pre>
 *
 * Flags: {@link #DECLARED}: the object's shared interfaces are exactly the one its value is declared as
 * where it travels (a parameter's or a result's type, which both ends' signatures name alike), and no name
 * travels ({@code niface} 0). A reference with it read where no shared interface is declared (an entry of a value's
 * table) is malformed. {@link #SENDER}: the owner is the base sending it, whose addresses the receiver knows the
 * sender by, and none travel ({@code naddr} 0); {@link ObjectSpace} checks that the owner is the sender. {@link #KNOWN}:
 * the owner's addresses are ones the receiver was given before (its answer to a call that carried them told the sender
 * so), and none travel ({@code naddr} 0); the receiver puts in the addresses it knows the owner by, and refuses the
 * reference if it knows none. At most one of {@link #SENDER} and {@link #KNOWN}.
 *
 * <p>The payload ends exactly after the last string (RPC pads the value). Checks on reading: at least
 * {@link #FIXED} bytes; owner non-zero; no flag but {@link #DECLARED}, {@link #SENDER} and {@link #KNOWN}, with the first
 * no interface name, with either of the others (not both) no address; reserved zero;
 * weight below 2^63; at most {@link #MAX_ADDRESSES} addresses and {@link #MAX_INTERFACES} interfaces, each string at
 * most {@link #MAX_STRING} bytes and inside the payload, nothing after the last. What a reference means to its
 * receiver (its own object coming home, or another base's) is checked by {@link ObjectSpace}.
 */
public final class ReferenceDescriptor {
    private ReferenceDescriptor() {}

    public static final int OWNER = 0;
    public static final int ID = 8;
    public static final int FLAGS = 12;
    public static final int WEIGHT = 16;
    public static final int ADDRESSES = 24;
    public static final int INTERFACES = 26;
    public static final int RESERVED = 28;
    public static final int FIXED = 32;
    public static final int MAX_ADDRESSES = 8;
    public static final int MAX_INTERFACES = 32;
    public static final int MAX_STRING = 1024;
    /**
     * The flag of a reference whose object offers exactly the shared interface its value is declared as: its name does
     * not travel (a reference of ~120 bytes was ~70: every line of a message is a line the receiving core takes from the
     * sending one).
     */
    public static final int DECLARED = 1;
    /**
     * The flag of a reference to an object of the base sending it: the owner's addresses do not travel, the receiver
     * knows them (the sender introduced itself, or was reached at them). A base's own objects are what it passes most.
     */
    public static final int SENDER = 2;
    /**
     * The flag of a reference whose owner's addresses the receiver was given before (by this sender, in a call it
     * answered, or by anyone: it reads them from what it knows): they do not travel again. A base forwarding another
     * base's objects to a third names the owner's addresses once per receiver (a forward's reference, ~70 bytes with a
     * base's shm address, is 32).
     */
    public static final int KNOWN = 4;
    /** The layouts of its fields: little-endian on any JVM, as the class comment says (and every base reads it). */
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * A reference's strings as they travel (its addresses, then its interfaces, each {@code [u16 n][n bytes UTF-8]}),
     * encoded once: a hold keeps them, so that sending its object on copies them instead of encoding them, and
     * reading another reference to it that carries the same bytes makes no string ({@link #decode(MemorySegment,
     * Strings, Class)}).
     *
     * @param bytes    the encoded strings
     * @param readable whether {@code bytes} pass the checks of {@link #decode(MemorySegment)} (counts and lengths
     *                 within the limits): only then may a payload's bytes be matched against them
     */
    record Strings(byte[] bytes, List<String> addresses, List<String> interfaces, boolean readable, int addressBytes) {
        static Strings of(List<String> addresses, List<String> interfaces) {
            int n = 0;
            int addressBytes = 0;
            boolean readable = addresses.size() <= MAX_ADDRESSES && interfaces.size() <= MAX_INTERFACES;
            byte[][] each = new byte[addresses.size() + interfaces.size()][];
            for (int k = 0; k < each.length; k++) {
                String s = k < addresses.size() ? addresses.get(k) : interfaces.get(k - addresses.size());
                each[k] = s.getBytes(StandardCharsets.UTF_8);
                readable &= each[k].length <= MAX_STRING;
                n += 2 + each[k].length;
                if (k == addresses.size() - 1) {
                    addressBytes = n; // (the addresses come first)
                }
            }
            byte[] out = new byte[n];
            MemorySegment m = MemorySegment.ofArray(out);
            long at = 0;
            for (byte[] b : each) {
                m.set(SHORT, at, (short) b.length);
                MemorySegment.copy(MemorySegment.ofArray(b), 0, m, at + 2, b.length);
                at += 2 + b.length;
            }
            return new Strings(out, addresses, interfaces, readable, addressBytes);
        }

        /** Whether a reference with these strings may travel {@link #DECLARED} where {@code declared} is declared. */
        boolean declaredAs(Class<?> declared) {
            return declares(interfaces, declared);
        }

        /**
         * Whether the strings of the reference in {@code m} are exactly these as they travel in its form: without the
         * addresses if {@code sender} ({@link #SENDER}), without the interfaces if {@code declared} ({@link #DECLARED}).
         */
        boolean travelIn(MemorySegment m, boolean sender, boolean declared) {
            int from = sender ? addressBytes : 0; // the addresses first, the interfaces after them
            int to = declared ? addressBytes : bytes.length;
            return m.byteSize() == FIXED + (to - from)
                    && MemorySegment.mismatch(m, FIXED, m.byteSize(), MemorySegment.ofArray(bytes), from, to) == -1;
        }
    }

    /** The payload of {@code r}. */
    public static byte[] encode(Reference r) {
        return encode(r, false);
    }

    /**
     * The payload of {@code r}, {@link #DECLARED} if {@code declared}: without its interface's name, travelling where
     * that interface is declared.
     *
     * @throws IllegalArgumentException if {@code declared} and {@code r} names other than one interface
     */
    public static byte[] encode(Reference r, boolean declared) {
        return encode(r, declared, 0);
    }

    /** The payload of {@code r}, a reference to an object of the base sending it: {@link #SENDER}, its addresses left out. */
    public static byte[] encodeFromSender(Reference r, boolean declared) {
        return encode(r, declared, SENDER);
    }

    /** The payload of {@code r} without its owner's addresses, which the receiver was given before: {@link #KNOWN}. */
    public static byte[] encodeKnown(Reference r, boolean declared) {
        return encode(r, declared, KNOWN);
    }

    private static byte[] encode(Reference r, boolean declared, int addressForm) {
        if (declared && r.interfaces().size() != 1) {
            throw new IllegalArgumentException("a DECLARED reference offers one interface, not " + r.interfaces());
        }
        return encodeIn(r.owner(), r.id(), r.weight(), Strings.of(r.addresses(), r.interfaces()), declared, addressForm);
    }

    /** The payload of a reference to object {@code id} of {@code owner} carrying {@code weight}, with {@code strings}. */
    static byte[] encode(long owner, int id, long weight, Strings strings) {
        return encodeIn(owner, id, weight, strings, false, 0);
    }

    /**
     * The payload of a reference to object {@code id} of {@code owner} carrying {@code weight}, with {@code strings}:
     * {@link #DECLARED}, without its interface, if {@code declared}; without its addresses in {@code addressForm}
     * ({@link #SENDER}: the owner sends it; {@link #KNOWN}: the receiver was given them before; 0: they travel).
     */
    static byte[] encodeIn(long owner, int id, long weight, Strings strings, boolean declared, int addressForm) {
        assert !declared || strings.interfaces().size() == 1 : "a DECLARED reference offers one interface";
        assert addressForm == 0 || addressForm == SENDER || addressForm == KNOWN;
        boolean sender = addressForm != 0; // (no address either way)
        int from = sender ? strings.addressBytes() : 0; // the addresses come first, the interfaces after them
        int to = declared ? strings.addressBytes() : strings.bytes().length;
        int n = Math.max(0, to - from);
        byte[] out = new byte[FIXED + n];
        MemorySegment m = MemorySegment.ofArray(out);
        m.set(LONG, OWNER, owner);
        m.set(INT, ID, id);
        m.set(INT, FLAGS, (declared ? DECLARED : 0) | addressForm);
        m.set(LONG, WEIGHT, weight);
        m.set(SHORT, ADDRESSES, (short) (sender ? 0 : strings.addresses().size()));
        m.set(SHORT, INTERFACES, (short) (declared ? 0 : strings.interfaces().size()));
        System.arraycopy(strings.bytes(), from, out, FIXED, n);
        return out;
    }

    /** Whether the reference in {@code m} is {@link #SENDER}'s (read raw: {@link #decode} checks the rest). */
    static boolean fromSender(MemorySegment m) {
        return m.byteSize() >= FIXED && (m.get(INT, FLAGS) & SENDER) != 0;
    }

    /** Whether the reference in {@code m} is {@link #KNOWN}'s (read raw: {@link #decode} checks the rest). */
    static boolean ofKnownOwner(MemorySegment m) {
        return m.byteSize() >= FIXED && (m.get(INT, FLAGS) & KNOWN) != 0;
    }

    /**
     * Whether the reference in {@code m} (read raw) names its owner's addresses: a receiver that answers a call carrying
     * it has them from then on ({@link ObjectSpace#answered}).
     */
    static boolean namesAddresses(MemorySegment m) {
        return m.byteSize() >= FIXED && m.get(SHORT, ADDRESSES) != 0;
    }

    /**
     * The weight of the reference in {@code m} if it is one to object {@code id} of {@code owner} carrying exactly
     * {@code known}'s strings (a {@link Strings#readable} one), or {@link #DECLARED} with its addresses where
     * {@code declared} (the type it is read as is {@code known}'s one interface: {@link #declares}), with reserved 0 and
     * a weight from 1 to 2^63 - 1; from its owner ({@code fromOwner}) only the {@link #SENDER} forms, without the
     * addresses (one naming its addresses goes the general way, which checks them), from another base the named and
     * the {@link #KNOWN} forms (the hold's addresses are ones this base knows the owner by); else -1, and {@link #decode(MemorySegment,
     * Strings, Class)} says what it is. A payload this accepts is one that method accepts (where that type is declared),
     * and it reads as {@code (owner, id, weight, known's lists)} (a SENDER one with the sender's addresses, which
     * {@code known}'s are, the hold having been made from them): the same checks,
     * made by comparing whole words with what {@code known} encodes, and no object made (an arrival of an object held
     * already).
     */
    static long weightIfSame(MemorySegment m, long owner, int id, Strings known, boolean declared, boolean fromOwner) {
        if (!known.readable() || m.byteSize() < FIXED || m.get(LONG, OWNER) != owner) {
            return -1;
        }
        long idAndFlags = m.get(LONG, ID);
        if ((int) idAndFlags != id) {
            return -1;
        }
        int flags = (int) (idAndFlags >>> 32);
        boolean byDeclared = (flags & DECLARED) != 0;
        int addressForm = flags & ~DECLARED;
        if (byDeclared && !declared
                || (fromOwner ? addressForm != SENDER : addressForm != 0 && addressForm != KNOWN)) { // from its owner: SENDER only
            return -1;
        }
        boolean noAddresses = addressForm != 0;
        long counts = (noAddresses ? 0 : known.addresses().size()) | (long) (byDeclared ? 0 : known.interfaces().size()) << 16;
        if (m.get(LONG, ADDRESSES) != counts) { // the counts, reserved 0
            return -1;
        }
        long w = m.get(LONG, WEIGHT);
        return w > 0 && known.travelIn(m, noAddresses, byDeclared) ? w : -1;
    }

    /** The owner field of {@code m}, read raw (unchecked: to find what {@link #decode(MemorySegment, Strings, Class)} may match); 0 if too short. */
    static long owner(MemorySegment m) {
        return m.byteSize() < FIXED ? 0 : m.get(LONG, OWNER);
    }

    /** The id field of {@code m}, read raw as {@link #owner} is; 0 if too short. */
    static int id(MemorySegment m) {
        return m.byteSize() < FIXED ? 0 : m.get(INT, ID);
    }

    /**
     * The reference in {@code m}, checked as the class comment says, read where no type is declared: a {@link #DECLARED}
     * one reads with no interface (for its owner, object and weight).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Reference decode(MemorySegment m) {
        return decode(m, null, null, true);
    }

    /**
     * The reference in {@code m}, checked as {@link #decode(MemorySegment)} checks it, read where {@code declared} is
     * declared (null: nowhere, and then a {@link #DECLARED} one is malformed); a {@link #DECLARED} one offers
     * {@code declared}, which must then be a shared interface. If its strings are exactly the bytes of {@code known}
     * (a {@link Strings#readable} one; may be null), or the bytes of its addresses in a {@link #DECLARED} one where
     * {@code known}'s one interface is {@code declared}, its lists are {@code known}'s and no string is made. The
     * result is the same either way: {@code known}'s bytes pass the same checks, and they are the encoding of its
     * lists, which decode to themselves (a decoded string is well-formed UTF-16).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static Reference decode(MemorySegment m, Strings known, Class<?> declared) {
        return decode(m, known, declared, false);
    }

    private static Reference decode(MemorySegment m, Strings known, Class<?> declared, boolean anyDeclared) {
        if (m.byteSize() < FIXED) {
            throw new IllegalArgumentException("a shared reference of " + m.byteSize() + " bytes");
        }
        long owner = m.get(LONG, OWNER);
        int id = m.get(INT, ID);
        long weight = m.get(LONG, WEIGHT);
        if (owner == 0) {
            throw new IllegalArgumentException("a shared reference without an owner");
        }
        int flags = m.get(INT, FLAGS);
        if ((flags & ~(DECLARED | SENDER | KNOWN)) != 0 || m.get(INT, RESERVED) != 0) {
            throw new IllegalArgumentException("a shared reference with unknown flags");
        }
        if ((flags & (SENDER | KNOWN)) == (SENDER | KNOWN)) {
            throw new IllegalArgumentException("a shared reference both to its sender's object and to an owner its receiver knows");
        }
        boolean byDeclared = (flags & DECLARED) != 0;
        boolean bySender = (flags & (SENDER | KNOWN)) != 0; // (no address either way)
        if (byDeclared && !anyDeclared && !sharedInterface(declared)) {
            throw new IllegalArgumentException("a shared reference offering the type it is declared as, where "
                    + (declared == null ? "none" : declared.getName() + ", which is no shared interface,") + " is declared");
        }
        if (weight < 0) {
            throw new IllegalArgumentException("a shared reference with a weight of 2^63 or more (overflow)");
        }
        int na = m.get(SHORT, ADDRESSES) & 0xFFFF;
        int ni = m.get(SHORT, INTERFACES) & 0xFFFF;
        if (na > MAX_ADDRESSES || ni > MAX_INTERFACES) {
            throw new IllegalArgumentException("a shared reference with " + na + " addresses and " + ni + " interfaces");
        }
        if (byDeclared && ni != 0) {
            throw new IllegalArgumentException("a shared reference offering the type it is declared as, and naming "
                    + ni + " interfaces");
        }
        if (bySender && na != 0) {
            throw new IllegalArgumentException("a shared reference to " + ((flags & SENDER) != 0 ? "its sender's object"
                    : "an object whose owner its receiver knows") + ", and naming " + na + " addresses");
        }
        if (known != null && known.readable() && (bySender || na == known.addresses().size())
                && (byDeclared ? known.declaredAs(declared) : ni == known.interfaces().size())
                && known.travelIn(m, bySender, byDeclared)) {
            return new Reference(owner, id, weight, bySender ? List.of() : known.addresses(), known.interfaces());
        }
        long[] at = {FIXED};
        List<String> addresses = strings(m, at, na);
        List<String> interfaces = byDeclared ? (declared == null ? List.of() : List.of(declared.getName())) : strings(m, at, ni);
        if (at[0] != m.byteSize()) {
            throw new IllegalArgumentException("a shared reference with " + (m.byteSize() - at[0]) + " bytes after its end");
        }
        return new Reference(owner, id, weight, addresses, interfaces);
    }

    /**
     * Whether a reference to an object offering the interfaces named {@code interfaces} travels {@link #DECLARED} where
     * {@code declared} is declared (null: no type): it is the object's one interface, and a shared interface.
     */
    static boolean declares(List<String> interfaces, Class<?> declared) {
        return interfaces.size() == 1 && sharedInterface(declared) && interfaces.getFirst().equals(declared.getName());
    }

    /** Whether {@code c} is a shared interface a {@link #DECLARED} reference may offer: one extending {@code Shared}. */
    private static boolean sharedInterface(Class<?> c) {
        return c != null && c.isInterface() && c != dev.verbatim.objects.Shared.class
                && dev.verbatim.objects.Shared.class.isAssignableFrom(c);
    }

    private static List<String> strings(MemorySegment m, long[] at, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (at[0] + 2 > m.byteSize()) {
                throw new IllegalArgumentException("a shared reference's string overruns it");
            }
            int n = m.get(SHORT, at[0]) & 0xFFFF;
            if (n > MAX_STRING || at[0] + 2 + n > m.byteSize()) {
                throw new IllegalArgumentException("a shared reference's string of " + n + " bytes overruns it");
            }
            out.add(new String(m.asSlice(at[0] + 2, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            at[0] += 2 + n;
        }
        return List.copyOf(out);
    }
}
