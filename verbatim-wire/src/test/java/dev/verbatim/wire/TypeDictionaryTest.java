package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A message of a type this JVM has never seen (its fingerprint patched to a description no local class
 * has) is refused until the description is learned, then read through name-based bindings.
 */
class TypeDictionaryTest {
    public record Local(int p, long q) {}
    public interface PQ { int p(); long q(); }
    public interface PQR { int p(); long q(); String r(); }

    /** Same layout as Local, but a field named differently so no local class shares it. */
    static final String FOREIGN = "struct{p:i32;q:i64;zz_only_remote:i64}";

    @Test
    void unknownFingerprintIsRefusedThenReadAfterLearning() {
        record Wide(int p, long q, long zz_only_remote) {}
        byte[] bytes = new WireWriter().toByteArray(new Wide(5, 6L, 7L));
        long localFp = Schema.fingerprint(Wide.class);
        assertEquals(FOREIGN, Schema.describe(Wide.class));
        // Pretend the writer's type is unknown here: patch the type table to a description with one more field.
        String foreign2 = "struct{p:i32;q:i64;zz_only_remote:i64;zz_unseen:f64}";
        long fp2 = Schema.fingerprintOf(foreign2);
        assertNotEquals(localFp, fp2);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        long tail = bytes.length - 8L * seg.get(MessageDescriptor.I16, 2) - 8L * seg.get(MessageDescriptor.I32, 4);
        // Wide's layout is q@0 zz@8 p@16 (24 bytes); the patched type adds an f64, which would need 32: re-layout is not
        // the point here, so use a description whose layout matches instead.
        String sameLayout = "struct{p:i32;q:i64;zz_other_name:i64}";
        long fp3 = Schema.fingerprintOf(sameLayout);
        seg.set(MessageDescriptor.I64, tail, fp3);
        WireReader reader = new WireReader();
        WireFormatException e = assertThrows(WireFormatException.class, () -> reader.validate(seg));
        assertEquals("unknown type fingerprint", e.rule());
        assertEquals(tail, e.offset());

        assertEquals(fp3, new TypeDictionary().learn(sameLayout));
        Message m = reader.validate(seg);
        PQ v = m.view(PQ.class);
        assertEquals(5, v.p());
        assertEquals(6L, v.q());
        PQR r = m.view(PQR.class);
        assertNull(r.r());
        assertEquals(new Local(5, 6L), m.materialize(Local.class));
    }

    /**
     * The process-wide limit bounds the types interned in this JVM, not how often a known one is learned again: a
     * server whose clients reconnect (each connection's dictionary learns the same types), or a program opening
     * many stored files of one type, must not run out of it.
     */
    @Test
    void learningAKnownTypeAgainAndAgainDoesNotUseUpTheProcessLimit() {
        String d = "struct{p:i32;q:i64;zz_learned_again:i64}";
        long fp = new TypeDictionary().learn(d);
        for (int i = 0; i < TypeDictionary.MAX_LEARNED_TYPES + 10; i++) {
            assertEquals(fp, new TypeDictionary().learn(d), "learned again, time " + i);
        }
    }

    @Test
    void describeThenLearnRoundTrips() {
        List<String> ds = TypeDictionary.describe(FingerprintVectorsTest.Drawing.class);
        TypeDictionary d = new TypeDictionary();
        long last = 0;
        for (String s : ds) last = d.learn(s);
        assertTrue(ds.contains(Schema.describe(FingerprintVectorsTest.Drawing.class)));
        assertNotEquals(0, last);
    }

    @Test
    void badDescriptionsAreRefusedWithOffsetAndRule() {
        TypeDictionary d = new TypeDictionary();
        assertRule(d, "struct{y:i32;x:i32}", "fields not in strictly ascending name order");
        assertRule(d, "struct{x:struct{}}", "type description not in canonical form");
        assertRule(d, "struct{x:i32", "type description ends early");
        assertRule(d, "struct{x:i33}", "unknown type keyword 'i33'");
        assertRule(d, "struct{x:@3}", "back reference beyond the enclosing types");
        assertRule(d, "struct{x:#0123456789abcdef}", "reference to an unknown type 0123456789abcdef");
        assertRule(d, "array(".repeat(300) + "i32" + ")".repeat(300), "type description nested too deeply");
        assertRule(d, "struct{}x", "trailing characters after the description");
        assertRule(d, "sealed{struct{}}", "a case of a sealed type must be a variant");
        assertRule(d, "x".repeat(70_000), "type description too long");
    }

    private static void assertRule(TypeDictionary d, String desc, String rule) {
        WireFormatException e = assertThrows(WireFormatException.class, () -> d.learn(desc), desc.length() > 60 ? desc.substring(0, 60) : desc);
        assertEquals(rule, e.rule(), e.getMessage());
        assertTrue(e.offset() >= 0 && e.offset() <= desc.length(), "offset " + e.offset());
    }
}
