package dev.verbatim.fuzz;

import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.Schema;

import java.util.Arrays;
import java.util.SplittableRandom;

import static dev.verbatim.fuzz.MessageLayout.I16;
import static dev.verbatim.fuzz.MessageLayout.I64;
import static dev.verbatim.fuzz.MessageLayout.putInt;
import static dev.verbatim.fuzz.MessageLayout.putLong;

/**
 * The mutator: turns a valid message into one that is probably not, aiming at what the validator checks (DESIGN
 * §3): bit flips, byte/int/long overwrites with interesting values (many relative to the message's length and
 * counts), references retargeted to another object, null or one past the end, lengths near the message size,
 * truncation, extension (also with room inserted before the tables), splicing two messages, header fields, type
 * table entries (duplicates, built-ins, other known fingerprints), swapped or copied object table entries, and
 * claims of huge counts and lengths. It also makes random messages (fully random, or behind a plausible header)
 * and scribbles on a message in place, as a peer writing into shared memory after validation could.
 *
 * <p>Invariant: everything is a function of the bytes and the random source, so a case is reproducible from its
 * seed. Stateless.
 */
final class Mutator {
    private Mutator() {}

    /** Interesting 32-bit values, some relative to where they are written and to the message's counts. */
    static int interestingInt(SplittableRandom r, MessageLayout l, int pos) {
        int rest = Math.max(0, l.length() - pos);
        return switch (r.nextInt(34)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> -1;
            case 3 -> 2;
            case 4 -> 7;
            case 5 -> 8;
            case 6 -> 0x7F;
            case 7 -> 0x80;
            case 8 -> 0xFF;
            case 9 -> 0xFFFF;
            case 10 -> 0x10000;
            case 11 -> Integer.MAX_VALUE;
            case 12 -> Integer.MIN_VALUE;
            case 13 -> 0x7FFF_FFF8;
            case 14 -> 0x4000_0000;
            case 15 -> -2;
            case 16 -> l.length();
            case 17 -> l.length() - 1 - r.nextInt(8);
            case 18 -> l.length() + 8;
            case 19 -> l.length() / 2;
            case 20 -> rest;
            case 21 -> rest / 2;
            case 22 -> rest / 4;
            case 23 -> rest / 8;
            case 24 -> rest / 4 + 1;
            case 25 -> 0x8000_0000 | (rest / 2);
            case 26 -> 0x8000_0000 | rest;
            case 27 -> l.objects();
            case 28 -> l.objects() - 1;
            case 29 -> l.objects() + 1;
            case 30 -> MessageDescriptor.FIRST_TABLE_TYPE_ID + r.nextInt(Math.max(1, l.types() + 1));
            case 31 -> 1 + r.nextInt(MessageDescriptor.MAX_BUILTIN);
            case 32 -> MessageDescriptor.FIRST_TABLE_TYPE_ID - 1;
            default -> r.nextInt();
        };
    }

    private static int anyPos(SplittableRandom r, int len) { return len == 0 ? 0 : r.nextInt(len); }

    /** A position biased into the objects (where most of the meaning is). */
    private static int objectPos(SplittableRandom r, MessageLayout l, int align) {
        int lo = MessageDescriptor.HEADER_LENGTH, hi = l.plausible() ? l.tail() : l.length();
        if (hi - lo < align || r.nextInt(5) == 0) return anyPos(r, l.length()) & -align;
        return (lo + r.nextInt(hi - lo)) & -align;
    }

    static byte[] mutate(byte[] base, byte[] other, SplittableRandom r) {
        byte[] m = base.clone();
        int ops = r.nextInt(4) == 0 ? 2 + r.nextInt(3) : 1;
        for (int k = 0; k < ops; k++) m = mutateOnce(m, other, r);
        return m;
    }

    static byte[] mutateOnce(byte[] m, byte[] other, SplittableRandom r) {
        MessageLayout l = MessageLayout.of(m);
        int len = m.length;
        switch (r.nextInt(18)) {
            case 0, 1 -> { // bit flips
                if (len == 0) return m;
                for (int i = 1 + r.nextInt(4); i > 0; i--) {
                    int p = r.nextBoolean() ? objectPos(r, l, 1) : anyPos(r, len);
                    if (p < len) m[p] ^= (byte) (1 << r.nextInt(8));
                }
            }
            case 2 -> { // interesting byte
                if (len == 0) return m;
                byte[] values = {0, 1, 2, (byte) 0x7F, (byte) 0x80, (byte) 0xFF, (byte) 0xFE, 0x40};
                m[anyPos(r, len)] = values[r.nextInt(values.length)];
            }
            case 3, 4 -> { // interesting int, mostly aligned in the objects
                int p = r.nextInt(4) == 0 ? anyPos(r, len) : objectPos(r, l, 4);
                putInt(m, p, interestingInt(r, l, p));
            }
            case 5, 6 -> { // retarget a reference (or anything that looks like one) to another object, null or one past the end
                int p = objectPos(r, l, 4);
                putInt(m, p, l.objects() == 0 ? -1 : r.nextInt(l.objects() + 2) - 1);
            }
            case 7 -> { // interesting long
                long[] values = {0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 0x7FFF_FFFFL, 0xFFFF_FFFFL,
                        FuzzTypes.TABLE_FINGERPRINTS[r.nextInt(FuzzTypes.TABLE_FINGERPRINTS.length)], r.nextLong()};
                putLong(m, anyPos(r, len) & -8, values[r.nextInt(values.length)]);
            }
            case 8 -> { // truncation
                if (len == 0) return m;
                int n = switch (r.nextInt(4)) {
                    case 0 -> len - 1 - r.nextInt(Math.min(len, 16));
                    case 1 -> r.nextInt(len) & -8;
                    case 2 -> l.plausible() ? l.tail() : r.nextInt(len);
                    default -> r.nextInt(len);
                };
                return Arrays.copyOf(m, Math.max(0, n));
            }
            case 9 -> { // extension
                int extra = switch (r.nextInt(3)) {
                    case 0 -> 8;
                    case 1 -> 1 + r.nextInt(16);
                    default -> r.nextInt(64);
                };
                byte[] e = Arrays.copyOf(m, len + extra);
                if (r.nextBoolean()) for (int i = len; i < e.length; i++) e[i] = (byte) r.nextInt();
                if (r.nextInt(3) == 0 && l.plausible()) { // room inserted before the tables: they move, entries no longer match
                    System.arraycopy(m, l.tail(), e, l.tail() + extra, len - l.tail());
                    Arrays.fill(e, l.tail(), l.tail() + extra, (byte) 0);
                }
                return e;
            }
            case 10 -> { // splicing: a head of this message and a tail of another, or a block of the other copied in
                if (r.nextBoolean()) {
                    int a = r.nextInt(len + 1), b = r.nextInt(other.length + 1);
                    if (r.nextBoolean()) { a &= -8; b &= -8; }
                    byte[] s = Arrays.copyOf(m, a + other.length - b);
                    System.arraycopy(other, b, s, a, other.length - b);
                    return s;
                }
                int n = Math.min(Math.min(len, other.length), 8 + r.nextInt(64));
                if (n <= 0) return m;
                int from = r.nextInt(other.length - n + 1), to = r.nextInt(len - n + 1);
                if (r.nextBoolean()) to = Math.min(from, len - n);
                System.arraycopy(other, from, m, to, n);
            }
            case 11 -> { // header fields
                if (len < MessageDescriptor.HEADER_LENGTH) return m;
                switch (r.nextInt(5)) {
                    case 0 -> m[MessageDescriptor.VERSION_OFFSET] = (byte) (r.nextBoolean() ? 0 : 2 + r.nextInt(254));
                    case 1 -> m[MessageDescriptor.FLAGS_OFFSET] = (byte) (1 << r.nextInt(8));
                    case 2 -> {
                        int[] values = {l.types() + 1, l.types() - 1, 0, 0xFFFF, MessageOracle.LIMITS.maxTypes(), MessageOracle.LIMITS.maxTypes() + 1, r.nextInt(0x10000)};
                        I16.set(m, MessageDescriptor.TYPE_COUNT_OFFSET, (short) values[r.nextInt(values.length)]);
                    }
                    default -> {
                        int[] values = {l.objects() + 1, l.objects() - 1, 0, -1, MessageOracle.LIMITS.maxObjects(), MessageOracle.LIMITS.maxObjects() + 1,
                                Integer.MAX_VALUE, Integer.MIN_VALUE, l.objects() + 2, l.objects() * 2};
                        putInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET, values[r.nextInt(values.length)]);
                    }
                }
            }
            case 12 -> { // type table entries
                if (!l.plausible() || l.types() == 0) return mutateOnce(m, other, r);
                int at = l.typeTable() + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types());
                long v = switch (r.nextInt(4)) {
                    case 0 -> FuzzTypes.TABLE_FINGERPRINTS[r.nextInt(FuzzTypes.TABLE_FINGERPRINTS.length)];
                    case 1 -> (long) I64.get(m, l.typeTable() + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types())); // a duplicate
                    case 2 -> Schema.fingerprint(int[].class); // a built-in type in the table
                    default -> r.nextLong();
                };
                putLong(m, at, v);
            }
            case 13 -> { // object table entries: swapped or copied
                if (!l.plausible() || l.objects() < 2) return mutateOnce(m, other, r);
                int e = MessageDescriptor.OBJECT_ENTRY_LENGTH;
                int i = l.objectTable() + e * r.nextInt(l.objects()), j = l.objectTable() + e * r.nextInt(l.objects());
                byte[] tmp = Arrays.copyOfRange(m, i, i + e);
                if (r.nextBoolean()) System.arraycopy(m, j, m, i, e);
                else {
                    System.arraycopy(m, j, m, i, e);
                    System.arraycopy(tmp, 0, m, j, e);
                }
            }
            case 14 -> { // one half of an object table entry (offset, or type id where the entry carries it)
                if (!l.plausible() || l.objects() == 0) return mutateOnce(m, other, r);
                int at = l.objectTable() + MessageDescriptor.OBJECT_ENTRY_LENGTH * r.nextInt(l.objects());
                if (MessageDescriptor.OBJECT_ENTRY_LENGTH >= 8 && r.nextBoolean()) at += 4;
                putInt(m, at, interestingInt(r, l, at));
            }
            case 15, 16 -> { // the first word of an object (an array or string length, a field): lengths near the message size
                if (!l.plausible() || l.objects() == 0) return mutateOnce(m, other, r);
                int o = l.objectStart(m, r.nextInt(l.objects()));
                if (o < 0) return mutateOnce(m, other, r);
                if (MessageDescriptor.OBJECT_ENTRY_LENGTH < 8 && r.nextBoolean()) o += 4; // type id first in the old layout
                int rest = l.tail() - o;
                int[] values = {rest, rest - 4, rest - 3, rest / 2, rest / 2 - 1, rest / 4, rest / 4 - 1, rest / 8, rest / 8 - 1,
                        rest + 1, rest / 4 + 1, 0x8000_0000 | (rest / 2), 0x8000_0000 | (rest / 2 - 1), Integer.MAX_VALUE, 0x7FFF_FFF0,
                        0x3FFF_FFFF, 0x1FFF_FFFF, -1, 0};
                putInt(m, o, values[r.nextInt(values.length)]);
            }
            default -> { // huge claims: counts and lengths the bytes cannot back
                if (len < MessageDescriptor.HEADER_LENGTH) return m;
                switch (r.nextInt(4)) {
                    case 0 -> putInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET, r.nextBoolean() ? MessageOracle.LIMITS.maxObjects() : Integer.MAX_VALUE);
                    case 1 -> I16.set(m, MessageDescriptor.TYPE_COUNT_OFFSET, (short) (r.nextBoolean() ? MessageOracle.LIMITS.maxTypes() : 0xFFFF));
                    default -> {
                        if (!l.plausible() || l.objects() == 0) return m;
                        int o = l.objectStart(m, r.nextInt(l.objects()));
                        if (o >= 0) putInt(m, o, r.nextBoolean() ? Integer.MAX_VALUE : 0x7FFF_FFFF / (1 + r.nextInt(8)));
                    }
                }
            }
        }
        return m;
    }

    /** Changes a message in place, keeping its length: what a peer scribbling on shared memory could do. */
    static void scribble(byte[] m, SplittableRandom r) {
        if (m.length == 0) return;
        MessageLayout l = MessageLayout.of(m);
        switch (r.nextInt(6)) {
            case 0 -> m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
            case 1 -> {
                int p = objectPos(r, l, 4);
                putInt(m, p, interestingInt(r, l, p));
            }
            case 2 -> putInt(m, objectPos(r, l, 4), l.objects() == 0 ? -1 : r.nextInt(l.objects() + 2) - 1);
            case 3 -> { // an object table entry or a type table entry
                if (!l.plausible() || l.objects() == 0) return;
                int at = l.objectTable() + MessageDescriptor.OBJECT_ENTRY_LENGTH * r.nextInt(l.objects()) + (r.nextBoolean() ? 4 : 0);
                putInt(m, at, interestingInt(r, l, at));
            }
            case 4 -> {
                if (!l.plausible() || l.types() == 0) return;
                putLong(m, l.typeTable() + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types()), FuzzTypes.TABLE_FINGERPRINTS[r.nextInt(FuzzTypes.TABLE_FINGERPRINTS.length)]);
            }
            default -> {
                if (!l.plausible() || l.objects() == 0) return;
                int o = l.objectStart(m, r.nextInt(l.objects()));
                if (o >= 0) putInt(m, o, r.nextBoolean() ? Integer.MAX_VALUE : l.tail() - o);
            }
        }
    }

    /** Random bytes: fully random, or behind a plausible header with tables that fit (to get past the first checks). */
    static byte[] randomMessage(SplittableRandom r) {
        if (r.nextBoolean()) {
            byte[] b = new byte[r.nextInt(r.nextBoolean() ? 24 : 300)];
            r.nextBytes(b);
            return b;
        }
        int types = r.nextInt(4), objects = r.nextInt(9), body = 8 * r.nextInt(16);
        int tail = MessageDescriptor.HEADER_LENGTH + body;
        byte[] b = new byte[tail + MessageDescriptor.TYPE_ENTRY_LENGTH * types + MessageDescriptor.OBJECT_ENTRY_LENGTH * objects];
        if (r.nextBoolean()) r.nextBytes(b);
        else for (int i = MessageDescriptor.HEADER_LENGTH; i < tail; i += 4) putInt(b, i, r.nextInt(8) == 0 ? r.nextInt() : r.nextInt(5) - 1);
        b[MessageDescriptor.VERSION_OFFSET] = MessageDescriptor.VERSION;
        b[MessageDescriptor.FLAGS_OFFSET] = 0;
        I16.set(b, MessageDescriptor.TYPE_COUNT_OFFSET, (short) types);
        putInt(b, MessageDescriptor.OBJECT_COUNT_OFFSET, objects);
        for (int k = 0; k < types; k++) {
            putLong(b, tail + MessageDescriptor.TYPE_ENTRY_LENGTH * k, FuzzTypes.TABLE_FINGERPRINTS[r.nextInt(FuzzTypes.TABLE_FINGERPRINTS.length)]);
        }
        int objTable = tail + MessageDescriptor.TYPE_ENTRY_LENGTH * types;
        int pos = MessageDescriptor.HEADER_LENGTH;
        for (int i = 0; i < objects; i++) {
            int at = objTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * i;
            int tid = r.nextBoolean() ? 1 + r.nextInt(MessageDescriptor.MAX_BUILTIN) : MessageDescriptor.FIRST_TABLE_TYPE_ID + r.nextInt(types + 1);
            putInt(b, at, pos);
            if (MessageDescriptor.OBJECT_ENTRY_LENGTH >= 8) putInt(b, at + 4, tid);
            else putInt(b, pos, tid);
            pos = Math.min(tail, pos + 8 * r.nextInt(3));
        }
        return b;
    }
}
