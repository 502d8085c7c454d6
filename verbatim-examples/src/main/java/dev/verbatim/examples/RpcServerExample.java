package dev.verbatim.examples;

// example:imports
import dev.verbatim.examples.WireExample.Order;
import dev.verbatim.examples.WireExample.OrderView;
import dev.verbatim.rpc.Kept;
import dev.verbatim.rpc.Node;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
// end

/**
 * The README's RPC server: exports {@link Quotes} and serves until the process is stopped (SIGTERM or
 * Ctrl-C close the node through its shutdown hook). Argument: the addresses to listen at (default
 * {@code shm:quotes-example}). Run with {@code --enable-native-access=ALL-UNNAMED} (the shm transport).
 */
public final class RpcServerExample {
    private RpcServerExample() {}

    // example:impl
    static final class QuotesImpl implements Quotes {
        private final ExecutorService worker = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory());
        private final AtomicInteger processed = new AtomicInteger();

        @Override
        public Quote quote(Order order) {
            return new Quote(order.symbol(), order.price() - 0.01, order.price() + 0.01);
        }

        @Override
        public void submit(OrderView order) {                  // a view: read in place, valid during the call
            Kept<OrderView> kept = Node.keep(order);           // a copy outside the connection, validated again
            worker.execute(() -> {                             // read after the call; closed when done
                try (kept) {
                    if (kept.get().quantity() > 0) {
                        processed.incrementAndGet();
                    }
                }
            });
        }

        @Override
        public int processed() {
            return processed.get();
        }
    }
    // end

    public static void main(String[] args) throws InterruptedException {
        String[] addresses = args.length > 0 ? args : new String[] {"shm:quotes-example"};
        // example:server
        Node server = Node.listen(addresses).closeOnShutdown();         // a process's presence; closed at exit
        server.export("quotes", Quotes.class, new QuotesImpl());        // exactly this interface of the object
        System.out.println("serving at " + server.addresses());
        server.awaitClose();                                            // the library's threads are daemons: wait here
        // end
    }
}
