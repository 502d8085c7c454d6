package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Contender;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.io.IOException;
import java.util.Set;

/**
 * A contender of {@code verbatim bench rpc}: an RPC system's server side, started first in its own
 * process, which exports a service keeping the {@link RpcCase} contracts, and its client side in
 * another process, which the harness ({@link RpcPeer}) times call by call. Register an
 * implementation in {@link RpcContenders}; see the package documentation.
 */
public interface RpcContender extends Contender {

    /**
     * The tables (and JSON case prefixes) its figures appear in: its own medium by default. Peers
     * that exist over one medium only (RMI, gRPC on loopback) appear in both, as what an RPC on
     * this host is compared with.
     */
    default Set<Medium> shownIn() {
        return Set.of(medium());
    }

    /**
     * Its column in the tables of {@code m} (one of {@link #shownIn()}) and its key in that medium's
     * JSON results: its {@link #name()}, but a contender shown beside another of the same name (the
     * plaintext tcp {@code verbatim} in the tls tables, as {@code verbatim-plain}) says how it is
     * told apart there.
     */
    default String nameIn(Medium m) {
        return name();
    }

    /**
     * Whether a {@code --quick} run includes it (unless {@code -Dverbatim.bench.only} names it): false for a
     * contender that only explains a target's bound ({@link FloorListRpc}), whose figure a quick run would not be
     * judged by anyway, so that {@code --quick} stays under its 90 s.
     */
    default boolean inQuickRuns() {
        return true;
    }

    /** The cases it measures; the others are n/a ('-') in its column. */
    Set<RpcCase> cases();

    /**
     * Whether its client spins while it waits for a reply (floors, Aeron, Verbatim in latency mode):
     * then a CPU share of the measuring thread well below 1 means the host was busy, and the tables
     * mark that figure; a client that blocks in the kernel has a low share anyway.
     */
    default boolean spins() {
        return false;
    }

    /**
     * Whether its server serves on its main thread in an echo loop that spins while it waits (the
     * shm floor, Aeron) and calls {@link dev.verbatim.bench.harness.ChildMain#echoed} after every call:
     * then the harness pauses it between turns (every call of the client is one echo), so an idle
     * contender does not take a core from the one measuring.
     */
    default boolean pausedBetweenTurns() {
        return false;
    }

    /** How a contender's client makes a throughput case's C concurrent calls ({@link Throughput}). */
    enum Callers {
        /** C threads, each making one call after another through the same {@link Call} (it must be thread-safe). */
        THREADS,
        /** One thread keeping C asynchronous calls in flight through {@link Client#asyncCall}. */
        ASYNC
    }

    /** How its client makes the throughput cases' concurrent calls: C threads by default. */
    default Callers callers() {
        return Callers.THREADS;
    }

    /**
     * Sets up the server side (listens, exports the service) and {@linkplain Session#publish
     * publishes} what the client needs (a port); runs first, in its own process.
     */
    Server server(Session session) throws Exception;

    /** Sets up the client side (connects, looks the service up); runs second, in another process. */
    Client client(Session session) throws Exception;

    /** The server side. */
    interface Server extends AutoCloseable {
        /**
         * Serves: either runs the service on this thread until the client closed (a ping-pong's pong
         * loop) or returns at once when the service runs on threads of its own (RMI, gRPC). Then the
         * process waits for the harness's STOP, sent once the client is done, and closes the server.
         */
        void serve() throws Exception;

        /** Unexports, stops listening, releases what the side holds. */
        @Override
        void close() throws IOException;
    }

    /**
     * The client side, used by one thread, except the {@link Call} of the null call: the throughput
     * cases make it from C threads at once ({@link Callers#THREADS}).
     */
    interface Client extends AutoCloseable {
        /**
         * Prepares the calls of {@code c} (one of {@link #cases()}, or {@link RpcCase#NULL} for the
         * throughput cases, {@link RpcCase#call()}): arguments, stubs, exported objects.
         */
        Call call(RpcCase c) throws Exception;

        /**
         * The asynchronous form of {@code c}'s call, for a contender whose {@link #callers()} is
         * {@link Callers#ASYNC} ({@code c} the {@link RpcCase#NULL} call of the throughput cases).
         */
        default AsyncCall asyncCall(RpcCase c) throws Exception {
            throw new UnsupportedOperationException("no asynchronous " + c.key() + " call");
        }

        /** Ends the run: a server whose {@link Server#serve()} runs until the client closed returns. */
        @Override
        void close() throws IOException;
    }

    /** One call of one case, timed by the harness. */
    @FunctionalInterface
    interface Call {
        /**
         * Makes call number {@code seq} (arguments as its {@link RpcCase} says) and returns the
         * service's result as a long ({@link RpcCase#expected(long)}), without checking it.
         */
        long call(long seq) throws Exception;
    }

    /** One asynchronous call of one case; the future may complete on any thread. */
    @FunctionalInterface
    interface AsyncCall {
        /** Starts call number {@code seq}; the future completes with the service's result as a long, unchecked. */
        java.util.concurrent.CompletableFuture<Long> call(long seq);
    }
}
