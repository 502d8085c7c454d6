package dev.verbatim.transport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * tcp between two "hosts": two network namespaces joined by a veth pair, each side a separate
 * process with its own network stack. Needs root and {@code ip netns}; where the machine does not
 * allow it the test reports skipped (an assumption), never passed.
 */
@Timeout(120)
class NetnsSystemTest {
    private static final String A = "vbt-a-" + ProcessHandle.current().pid();
    private static final String B = "vbt-b-" + ProcessHandle.current().pid();
    private static final String VETH = "vbt" + (ProcessHandle.current().pid() % 100_000);
    private static boolean created;

    @BeforeAll
    static void namespaces() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "Linux only");
        Assumptions.assumeTrue(run("ip", "netns", "add", A) == 0, "cannot create network namespaces here (needs root and iproute2)");
        created = true;
        Assumptions.assumeTrue(run("ip", "netns", "add", B) == 0, "cannot create a second network namespace");
        Assumptions.assumeTrue(run("ip", "link", "add", VETH + "a", "type", "veth", "peer", "name", VETH + "b") == 0,
                "cannot create a veth pair");
        require("ip", "link", "set", VETH + "a", "netns", A);
        require("ip", "link", "set", VETH + "b", "netns", B);
        require("ip", "-n", A, "addr", "add", "10.231.7.1/24", "dev", VETH + "a");
        require("ip", "-n", B, "addr", "add", "10.231.7.2/24", "dev", VETH + "b");
        for (String ns : List.of(A, B)) {
            require("ip", "-n", ns, "link", "set", "lo", "up");
        }
        require("ip", "-n", A, "link", "set", VETH + "a", "up");
        require("ip", "-n", B, "link", "set", VETH + "b", "up");
    }

    @AfterAll
    static void removeNamespaces() throws Exception {
        if (created) {
            run("ip", "netns", "del", A); // deleting a namespace deletes its end of the veth pair, and so the pair
            run("ip", "netns", "del", B);
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    private static void require(String... command) throws IOException, InterruptedException {
        assertEquals(0, run(command), "command failed: " + String.join(" ", command));
    }

    private static List<String> in(String ns) {
        return new ArrayList<>(List.of("ip", "netns", "exec", ns));
    }

    @Test
    void tcpBetweenTwoNetworkNamespaces() throws Exception {
        try (Child server = new Child(in(A), "serve-echo", "tcp://10.231.7.1:0")) {
            String listening = server.await(60, "LISTENING", "FAIL");
            assertTrue(listening.startsWith("LISTENING tcp://10.231.7.1:"), listening + "\n" + server.output());
            String address = listening.substring("LISTENING ".length());
            try (Child client = new Child(in(B), "ping", address, "500")) {
                String result = client.await(90, "OK", "FAIL");
                assertEquals("OK pinged 500", result, client.output());
                assertEquals(0, client.exit(30), "the client closed its connection and exited");
            }
            assertTrue(server.await(30, "OK", "FAIL").startsWith("OK echoed 500"), server.output());
        }
        // and the loopback of one namespace is not reachable from the other
        try (Child server = new Child(in(A), "serve-echo", "tcp://:0")) {
            String listening = server.await(60, "LISTENING", "FAIL");
            String port = listening.substring(listening.lastIndexOf(':') + 1);
            try (Child client = new Child(in(B), "ping", "tcp://10.231.7.1:" + port, "1")) {
                String result = client.await(90, "OK", "FAIL");
                assertTrue(result.startsWith("FAIL") && result.contains("CONNECT"),
                        "a loopback listener refuses another host: " + result);
            }
        }
    }
}
