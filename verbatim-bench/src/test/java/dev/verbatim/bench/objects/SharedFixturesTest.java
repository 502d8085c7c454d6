package dev.verbatim.bench.objects;

import dev.verbatim.bench.objects.SharedFixtures.Elem;
import dev.verbatim.bench.objects.SharedFixtures.Element;
import dev.verbatim.objects.Base;
import dev.verbatim.objects.RemoteBase;
import dev.verbatim.objects.internal.Reference;
import dev.verbatim.objects.internal.ReferenceDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The list's elements and walks, with two bases in this process over tcp (the suite runs them in four processes). */
@Timeout(60)
class SharedFixturesTest {

    @Test
    void everyWalkSumsTheValuesAcrossBasesAndOnlyElementsOfTheOtherBaseAreRemote() {
        try (Base a = Base.listen("tcp://127.0.0.1:0"); Base b = Base.listen("tcp://127.0.0.1:0")) {
            b.allow(Element.class);
            RemoteBase atB = a.base(b.addresses().getFirst());
            int n = 10;
            Elem next = null;
            for (int i = n - 1; i >= 0; i--) { // compact: 0-4 on a, 5-9 on b
                int home = Layout.COMPACT.home(i, n, 2);
                next = home == 0 ? new Element(i, next) : atB.create(Elem.class, Element.class, (long) i, next);
                assertEquals(home == 1, Base.isRemote(next), "element " + i);
            }
            Elem head = next;
            assertFalse(Base.isRemote(head));
            long expected = ObjectsCase.list(Layout.COMPACT, Traversal.SERIAL, 2).expected(ObjectsCase.OBJECTS, n);
            assertEquals(45, expected);
            assertEquals(expected, head.serial(0));
            assertEquals(expected, head.threaded(1_000));
            assertEquals(expected, head.hybrid(1_000));
        }
    }

    /** {@code forward-ref}'s {@code bytes} carries a byte[] exactly as long as the reference the forward carries. */
    @Test
    void theForwardsBytesAreAsLongAsTheReferenceItCarries() {
        String address = "shm:verbatim-bench-objects-4242-b1";
        byte[] reference = ReferenceDescriptor.encodeKnown(new Reference(7, 1, 1L << 24, List.of(address),
                List.of(SharedFixtures.Probe.class.getName())), true); // put(Probe) declares the probe's one interface,
        assertEquals(reference.length, BaseZeroCalls.referenceBytes()); // and base 2 knows base 1's address after one
        assertEquals(List.of(SharedFixtures.Probe.class), List.of(SharedFixtures.ProbeImpl.class.getInterfaces()).stream()
                .filter(dev.verbatim.objects.Shared.class::isAssignableFrom).toList(), "the probe offers one shared interface");
    }

    @Test
    void aSpinOfWorkTakesAtLeastItsTime() {
        long t0 = System.nanoTime();
        SharedFixtures.Work.spin(2_000_000);
        assertTrue(System.nanoTime() - t0 >= 2_000_000);
        Thread t = SharedFixtures.Work.start(1_000_000);
        SharedFixtures.Work.join(t);
        assertFalse(t.isAlive());
    }
}
