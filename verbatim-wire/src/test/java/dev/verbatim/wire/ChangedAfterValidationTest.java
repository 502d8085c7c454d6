package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

import static dev.verbatim.wire.MaterializerTest.fieldAt;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A message whose memory a shared-memory peer changes after it was validated fails, when read, with a
 * {@link WireFormatException} that says so, never with a {@link WireSchemaException} describing the sender's types as
 * if the sender had written what the peer scribbled (DESIGN §7).
 */
class ChangedAfterValidationTest {
    public record Chain(int v, Chain next) {}
    public record Holder(int id, Chain chain) {}
    public interface HolderView { int id(); Chain chain(); }

    private static Chain chain(int n) {
        Chain c = null;
        for (int i = n - 1; i >= 0; i--) c = new Chain(i, c);
        return c;
    }

    @Test
    void aRecordCycleMadeAfterValidationIsAFormatErrorWhereverItCloses() {
        for (int target = 0; target < 5; target++) {
            MemorySegment seg = MemorySegment.ofArray(new WireWriter().toByteArray(chain(5)));
            Message m = new WireReader().validate(seg);
            assertEquals(4, m.materialize(Chain.class).next().next().next().next().v(), "the validated chain reads");
            seg.set(MessageDescriptor.I32, fieldAt(m, 4, Chain.class, "next"), target); // the last node now points back
            WireFormatException e = assertThrows(WireFormatException.class, () -> m.materialize(Chain.class));
            assertTrue(e.getMessage().contains("changed after validation"), e.getMessage());
        }
    }

    @Test
    void aRecordCycleMadeAfterValidationUnderAViewIsAFormatError() {
        MemorySegment seg = MemorySegment.ofArray(new WireWriter().toByteArray(new Holder(7, chain(3))));
        Message m = new WireReader().validate(seg);
        HolderView v = m.view(HolderView.class);
        assertEquals(2, v.chain().next().next().v());
        seg.set(MessageDescriptor.I32, fieldAt(m, 3, Chain.class, "next"), 1); // the chain's last node points at its first
        assertThrows(WireFormatException.class, v::chain);
        assertEquals(7, v.id(), "the rest of the message still reads");
    }

    @Test
    void aRecordCycleTheValidatorSawIsStillASchemaError() {
        MemorySegment seg = MemorySegment.ofArray(new WireWriter().toByteArray(chain(3)));
        Message probe = new WireReader().validate(seg);
        seg.set(MessageDescriptor.I32, fieldAt(probe, 2, Chain.class, "next"), 0);
        Message m = new WireReader().validate(seg); // a peer's valid message with a cycle
        assertThrows(WireSchemaException.class, () -> m.materialize(Chain.class));
    }
}
