package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Contender;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Session;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * A contender of the round-trip figures: a ping side and a pong side, each in its own process.
 * The harness (in {@link Peer}) creates the pong side first, then the ping side, and times each
 * {@link Ping#roundTrip} with {@link System#nanoTime()} into a {@link LatencyHistogram}; it checks
 * every echo (a sequence stamp in the first and last 8 bytes) outside the timed region. Register an
 * implementation in {@link Contenders}; see the package documentation.
 */
public interface PingPongContender extends Contender {

    /** Sets up the echoing side (listens, creates its files); runs first, in its own process. */
    Pong pong(Session session) throws Exception;

    /** Sets up the measuring side (connects); runs second, in another process. */
    Ping ping(Session session) throws Exception;

    /** The measuring side. One thread. */
    interface Ping extends AutoCloseable {
        /**
         * Sends {@code message[0, size)} to the pong side and waits (spinning, or however the
         * contender waits) for its echo, whose bytes it leaves in {@code reply[0, size)}: every byte
         * of the echo is read, as the floor reads them. {@code size} is at least 8 and at most the
         * session's {@link Session#maxSize()}; both segments are native and that large.
         */
        void roundTrip(MemorySegment message, MemorySegment reply, int size) throws Exception;

        /** Ends the run: the pong side's next {@link Pong#echo()} returns false. */
        @Override
        void close() throws IOException;
    }

    /**
     * What a server makes of a whole request ({@link Contenders#servingFloor}): the word its reply carries. The
     * request is memory of the server's own, the message copied out of the shared file as the floor takes it in.
     */
    @FunctionalInterface
    interface Work {
        long reply(MemorySegment request, int size) throws Exception;
    }

    /** The echoing side. One thread. */
    interface Pong extends AutoCloseable {
        /**
         * Waits for one message and sends its bytes back unchanged.
         *
         * @return false, without echoing, when the ping side closed
         */
        boolean echo() throws Exception;

        /** Releases what the side holds (called after {@link #echo()} returned false). */
        @Override
        void close() throws IOException;
    }
}
