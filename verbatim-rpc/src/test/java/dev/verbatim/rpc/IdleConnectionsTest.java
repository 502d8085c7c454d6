package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Idle tcp connections hold no thread (docs/rpc.md §4: a dispatcher run ends on an idle connection and the
 * transport starts a new one when a message comes), a call on a connection that went idle is answered, and
 * connections opened and closed by the thousand leave no descriptor or thread behind.
 */
@Timeout(180)
class IdleConnectionsTest {
    /** The service every connection calls. */
    public interface Echo extends Remote {
        int echo(int x);
    }

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    private Node server() {
        Node s = Node.listen("tcp://127.0.0.1:0");
        nodes.add(s);
        s.export("echo", Echo.class, x -> x + 1);
        return s;
    }

    private Echo client(Node server) {
        Node c = Node.create();
        nodes.add(c);
        return c.lookup(server.addresses().getFirst(), "echo", Echo.class, Duration.ofSeconds(20));
    }

    @Test
    void idleConnectionsHoldNoThreadAndAreStillAnswered() throws Exception {
        Node server = server();
        Echo first = client(server);
        assertEquals(2, first.echo(1));
        int before = liveThreads();
        int fdsBefore = openDescriptors();
        int n = 200;
        List<Echo> echoes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Echo e = client(server);
            assertEquals(i + 1, e.echo(i));
            echoes.add(e);
        }
        // both ends of every connection are in this process: two sockets each, and nothing else (a selector
        // per blocking wait would be two descriptors more each)
        int fdsAdded = openDescriptors() - fdsBefore;
        assertTrue(fdsAdded <= 2 * n + n / 2, n + " connections added " + fdsAdded + " descriptors (both ends: " + 2 * n + " sockets)");
        // every connection called once and is idle now: their dispatcher runs end (after ~50 ms)
        int added = Integer.MAX_VALUE;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            added = liveThreads() - before;
            if (added <= n / 20) {
                break;
            }
            Thread.sleep(50);
        }
        assertTrue(added <= n / 20, n + " idle connections left " + added + " more threads (a thread each would be " + n + ")");
        Thread.sleep(300); // idle well past a run's end
        for (int i = 0; i < n; i += 17) {
            Echo e = Node.withTimeout(echoes.get(i), Duration.ofSeconds(10));
            assertEquals(i + 2, e.echo(i + 1), "a call on a connection that went idle is answered");
        }
        assertEquals(3, first.echo(2));
    }

    @Test
    void aThousandConnectionsOpenedAndClosedLeaveNoDescriptorOrThreadBehind() throws Exception {
        Node server = server();
        assertEquals(2, client(server).echo(1)); // the first connection's lazily made pieces (classes, pools) exist
        int fdsBefore = openDescriptors();
        List<String> threadsBefore = verbatimThreads();
        List<Node> clients = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 250; i++) {
                Node c = Node.create();
                clients.add(c);
                assertEquals(i + 1, c.lookup(server.addresses().getFirst(), "echo", Echo.class, Duration.ofSeconds(20)).echo(i));
            }
            clients.forEach(Node::close);
            clients.clear();
        }
        int fds = Integer.MAX_VALUE;
        List<String> threads = List.of();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            fds = openDescriptors();
            threads = verbatimThreads();
            if (fds <= fdsBefore + 4 && threads.size() <= threadsBefore.size() && server.connections() <= 1) {
                break;
            }
            Thread.sleep(100);
        }
        assertTrue(fds <= fdsBefore + 4, "descriptors before " + fdsBefore + ", after 1,000 connections closed " + fds);
        assertTrue(threads.size() <= threadsBefore.size(), "threads before " + threadsBefore + ", after " + threads);
        assertEquals(1, server.connections(), "the server dropped the closed connections");
    }

    private static int openDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    /** Live threads, not counting pool threads waiting for a run (no connection holds them; they end after a keep-alive). */
    private static int liveThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !t.getName().startsWith("verbatim-rpc-dispatch-")).count();
    }

    /** Verbatim's threads now, pool threads with no run not counted (they end after their keep-alive). */
    private static List<String> verbatimThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("verbatim-") && !n.startsWith("verbatim-rpc-dispatch-"))
                .sorted().toList();
    }
}
