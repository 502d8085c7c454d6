package dev.verbatim.cli.demo;

import dev.verbatim.cli.demo.DemoApi.BookView;
import dev.verbatim.cli.demo.DemoApi.Order;
import dev.verbatim.cli.demo.DemoApi.OrderView;
import dev.verbatim.cli.demo.DemoApi.Quote;
import dev.verbatim.cli.demo.DemoApi.QuoteListener;
import dev.verbatim.cli.demo.DemoApi.Quotes;
import dev.verbatim.cli.demo.DemoApi.QuotesV2;
import dev.verbatim.cli.demo.DemoApi.RejectedException;
import dev.verbatim.rpc.Node;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.ThrowawayPki;

import java.nio.file.Path;


/**
 * The server process of the demo: exports {@code quotes} on {@code shm:NAME} and {@code tcp://:0};
 * prints {@code READY shmAddress tcpAddress} and
 * runs until its standard input closes (so it never outlives the demo).
 */
public final class DemoServer {
    private DemoServer() {}

    static final class QuotesImpl implements QuotesV2 {
        private final Node node;
        private final boolean v2;
        private long sequence;

        QuotesImpl(Node node, boolean v2) {
            this.node = node;
            this.v2 = v2;
        }

        @Override
        public void ping() {
        }

        @Override
        public Quote quote(Order order) {
            double mid = 100 + (order.id() % 7);
            return new Quote(order.symbol(), mid - 0.01, mid + 0.01, ++sequence);
        }

        @Override
        public long volume(BookView book) {
            long v = 0;
            for (OrderView o : book.orders()) {
                v += o.quantity();
            }
            return v;
        }

        @Override
        public int subscribe(QuoteListener listener, int ticks) {
            for (int i = 0; i < ticks; i++) {
                listener.onQuote(new Quote("ACME", 99.99 + i, 100.01 + i, ++sequence));
            }
            return ticks;
        }

        @Override
        public void submit(Order order) throws RejectedException {
            if (order.quantity() <= 0) {
                throw new RejectedException("order " + order.id() + ": quantity must be positive, was " + order.quantity());
            }
        }

        @Override
        public void upgrade() {
            node.rebind("quotes", QuotesV2.class, new QuotesImpl(node, true));
        }

        @Override
        public String version() {
            return v2 ? "2" : "1";
        }
    }

    public static void main(String[] args) throws Exception {
        String shm = args[0];
        // with a throwaway CA's directory (demo --transport tls), the tcp listener requires mutual TLS
        ConnectionOptions options = args.length > 1
                ? Node.DEFAULT_OPTIONS.withTls(ThrowawayPki.at(Path.of(args[1])).listener()) : Node.DEFAULT_OPTIONS;
        try (Node node = Node.listen(options, shm, "tcp://:0")) {
            node.export("quotes", Quotes.class, new QuotesImpl(node, false));
            System.out.println("READY " + node.addresses().get(0) + " " + node.addresses().get(1));
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the demo closes our standard input (or dies)
            }
        }
        System.exit(0);
    }
}
