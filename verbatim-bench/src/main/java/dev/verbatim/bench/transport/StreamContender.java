package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Contender;
import dev.verbatim.bench.harness.Session;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * A contender of the one-way streaming bandwidth figure: a producer and a consumer, each in its own
 * process. The harness (in {@link Peer}) creates the consumer first (it owns the receive side),
 * then the producer; the producer sends a planned number of messages of each size as fast as the
 * contender lets it, and the consumer times batches of them. Every received message's size and
 * sequence stamps (first and last 8 bytes) are checked. Register an implementation in
 * {@link Contenders}; see the package documentation.
 */
public interface StreamContender extends Contender {

    /** Sets up the receiving side; runs first, in its own process. */
    Consumer consumer(Session session) throws Exception;

    /** Sets up the sending side; runs second, in another process. */
    Producer producer(Session session) throws Exception;

    /** The sending side. One thread. */
    interface Producer extends AutoCloseable {
        /** Sends {@code message[0, size)}, waiting while the receiver has no room (never dropping). */
        void send(MemorySegment message, int size) throws Exception;

        /** Releases what the side holds; called once the consumer has received everything. */
        @Override
        void close() throws IOException;
    }

    /** The receiving side. One thread. */
    interface Consumer extends AutoCloseable {
        /**
         * Waits for the next message, in order, and leaves its bytes in {@code into} (every byte
         * read, as the floor reads them).
         *
         * @return the message's size
         */
        int receive(MemorySegment into) throws Exception;

        /** Releases what the side holds. */
        @Override
        void close() throws IOException;
    }
}
