package dev.verbatim.objects.internal;

import dev.verbatim.objects.Fixtures;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A reference naming a base that never existed (docs/objects.md §1, §7): nothing tells it, without a message
 * to that base, from a base that died since the reference was made, and forwarding sends the owner no
 * message; so it is accepted as it arrives, and its first use fails with {@code GONE} at once.
 */
@Timeout(60)
class NeverExistedTest {
    @Test
    void aReferenceToABaseThatNeverExistedIsAcceptedAndItsFirstCallFailsGone() {
        ObjectSpace s = Spaces.shm("never");
        try {
            byte[] r = ReferenceDescriptor.encode(new Reference(0x6e7e4L, 1, 1,
                    List.of("shm:never-was-" + ProcessHandle.current().pid()), List.of(Fixtures.Counter.class.getName())));
            Fixtures.Counter ghost = (Fixtures.Counter) s.decode(MemorySegment.ofArray(r), Fixtures.Counter.class, 0L);
            RemoteException e = assertThrows(RemoteException.class, ghost::value);
            assertEquals(RemoteException.Reason.GONE, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("cannot be reached"), e.getMessage());
        } finally {
            s.close();
        }
    }
}
