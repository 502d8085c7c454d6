package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Ball;
import dev.verbatim.objects.Fixtures.Bouncer;
import dev.verbatim.objects.Fixtures.GuardedBall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Call chains that come back to a base more than once (A -> B -> A -> B ...): each return to a base arrives over a
 * connection whose reader may be the very thread that waits further down the chain.
 */
@Timeout(60)
class ReentrantChainsTest {
    private final List<Base> bases = new ArrayList<>();

    private Base base(String transport) {
        Base b = Base.listen(BaseOptions.DEFAULT, BasesInOneProcessTest.address(transport));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    @ParameterizedTest(name = "{0}, {1} bounces")
    @CsvSource({"shm, 3", "shm, 4", "shm, 12", "tcp, 3", "tcp, 4", "tcp, 12"})
    void aChainThatComesBackToEachBaseManyTimesCompletes(String transport, int bounces) {
        Base a = base(transport);
        Base b = base(transport);
        Ball atA = new Ball("a");
        b.bind("ball", new Ball("b"));
        Bouncer atB = a.lookup(b.addresses().getFirst(), "ball", Bouncer.class);

        String expected = "ab".repeat(bounces + 1).substring(1, bounces + 2);
        assertEquals(expected, atB.bounce(bounces, atA));
        assertEquals(expected, atB.bounce(bounces, atA), "and again on the same connections");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"shm", "tcp"})
    void eachReturnOfTheChainReentersTheMonitorsOfTheThreadThatWaitsOnThatBase(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        GuardedBall atA = new GuardedBall("a");
        GuardedBall ballB = new GuardedBall("b");
        b.bind("ball", ballB);
        Bouncer atB = a.lookup(b.addresses().getFirst(), "ball", Bouncer.class);

        // every bounce after the first on a base needs the monitor its first bounce holds: a call run on
        // any other thread than the one waiting in the chain there would block until the chain times out
        assertEquals("babababa", atB.bounce(7, atA));
        assertEquals(4, atA.threads.size());
        assertEquals(4, ballB.threads.size());
        assertTrue(atA.threads.stream().allMatch(t -> t == Thread.currentThread()), "a's bounces ran on the caller");
        assertTrue(ballB.threads.stream().allMatch(t -> t == ballB.threads.getFirst()), "b's bounces ran on one thread");
    }
}
