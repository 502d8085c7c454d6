package dev.verbatim.objects;

import dev.verbatim.objects.ChildBases.Child;
import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Registry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Three bases in three network namespaces over tcp (hosts, as far as the kernel knows): this JVM's base in
 * the namespace it runs in, and two child bases each in a namespace of its own, joined by veth pairs on a
 * bridge. Needs root and {@code ip}; skipped with a message where namespaces cannot be made. Every
 * namespace, link and child goes when the class ends, whatever happened.
 */
@Timeout(240)
class NamespacesTest {
    private static final String TAG = "v" + Long.toString(ProcessHandle.current().pid() % 100_000, 36);
    private static final String BRIDGE = "vb" + TAG;
    private static final String SUBNET = "10.214." + (ProcessHandle.current().pid() % 250) + ".";
    private static final List<String> made = new ArrayList<>();
    private static String unavailable;
    @RegisterExtension
    static final ChildBases children = new ChildBases();
    private Base a;

    @BeforeAll
    static void makeNamespaces() {
        try {
            ip("link", "add", BRIDGE, "type", "bridge");
            made.add("link:" + BRIDGE);
            ip("addr", "add", SUBNET + "1/24", "dev", BRIDGE);
            ip("link", "set", BRIDGE, "up");
            for (int i = 1; i <= 2; i++) {
                String ns = "n" + i + TAG;
                ip("netns", "add", ns);
                made.add("netns:" + ns);
                ip("link", "add", "h" + i + TAG, "type", "veth", "peer", "name", "p" + i + TAG);
                ip("link", "set", "p" + i + TAG, "netns", ns);
                ip("link", "set", "h" + i + TAG, "master", BRIDGE);
                ip("link", "set", "h" + i + TAG, "up");
                ip("netns", "exec", ns, "ip", "addr", "add", SUBNET + (10 + i) + "/24", "dev", "p" + i + TAG);
                ip("netns", "exec", ns, "ip", "link", "set", "p" + i + TAG, "up");
                ip("netns", "exec", ns, "ip", "link", "set", "lo", "up");
            }
        } catch (IOException | RuntimeException e) {
            unavailable = "network namespaces cannot be made here (" + e.getMessage() + ")";
        }
    }

    @AfterAll
    static void removeNamespaces() {
        for (int i = made.size() - 1; i >= 0; i--) {
            String[] m = made.get(i).split(":");
            try {
                if (m[0].equals("netns")) {
                    ip("netns", "del", m[1]); // its veth end goes with it, and the pair with it
                } else {
                    ip("link", "del", m[1]);
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("NamespacesTest: could not remove " + made.get(i) + ": " + e.getMessage());
            }
        }
        made.clear();
    }

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
    }

    /** Runs {@code ip ARGS}, within 30 seconds. */
    private static void ip(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not end");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": "
                    + new String(p.getInputStream().readAllBytes()).strip());
        }
    }

    @Test
    void threeBasesInThreeNetworkNamespacesForwardCallKeepIdentityAndRecoverFromADeath() throws Exception {
        Assumptions.assumeTrue(unavailable == null, () -> "skipped: " + unavailable);
        a = Base.listen(BaseOptions.DEFAULT.withTimeout(Duration.ofSeconds(100)).withCensusDelay(Duration.ofMillis(200)),
                "tcp://" + SUBNET + "1:0");
        Child b = children.start("tcp://" + SUBNET + "11:0", List.of("ip", "netns", "exec", "n1" + TAG));
        Child c = children.start("tcp://" + SUBNET + "12:0", List.of("ip", "netns", "exec", "n2" + TAG));
        Registry storeB = a.lookup(b.address(), "store", Registry.class);
        Registry store2B = a.lookup(b.address(), "store2", Registry.class);
        Registry storeC = a.lookup(c.address(), "store", Registry.class);
        Cell cell = new Cell(1);
        Cell onlyB = new Cell(5);
        assertSame(cell, storeB.via(cell, storeC, null), "a→b→c→a: the cell comes home as itself");
        assertEquals(3, storeC.addToStored(2), "c, in its own namespace, calls a's cell (connecting to a)");
        store2B.put(onlyB);
        assertEquals(2, a.exportedObjects());

        ChildBases.kill(b);
        while (a.exportedObjects() != 1) { // bounded by the test's timeout
            Thread.sleep(20);
        }
        assertEquals(0, a.outstandingWeight(onlyB), "what only b held is freed");
        assertEquals(4, storeC.addToStored(1), "what c holds is kept, and c still calls it");
    }
}
