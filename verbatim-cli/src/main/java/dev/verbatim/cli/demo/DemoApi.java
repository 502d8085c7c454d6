package dev.verbatim.cli.demo;

import dev.verbatim.rpc.Remote;

import java.util.List;

/** The interfaces and types of {@code ./verbatim demo}: what a client and a server share, and nothing else. */
public final class DemoApi {
    private DemoApi() {}

    public enum Side { BUY, SELL }

    public record Order(long id, String symbol, Side side, int quantity, double limit) {}

    public record Quote(String symbol, double bid, double ask, long sequence) {}

    public record Book(String venue, List<Order> orders) {}

    /** The server's view of a book: read in place, no copy of the orders. */
    public interface OrderView {
        long id();

        CharSequence symbol();

        Side side();

        int quantity();

        double limit();
    }

    public interface BookView {
        CharSequence venue();

        List<OrderView> orders();
    }

    /** Passed by reference: the server calls back into the client. */
    public interface QuoteListener extends Remote {
        void onQuote(Quote quote);
    }

    public static class RejectedException extends Exception {
        private static final long serialVersionUID = 1L;

        public RejectedException(String message) {
            super(message);
        }
    }

    /** Version 1 of the service. */
    public interface Quotes {
        void ping();

        Quote quote(Order order);

        long volume(BookView book);

        int subscribe(QuoteListener listener, int ticks);

        void submit(Order order) throws RejectedException;

        /** Asks the server to upgrade its export to {@link QuotesV2} (a demo control). */
        void upgrade();
    }

    /** Version 2 extends version 1: old clients go on calling. */
    public interface QuotesV2 extends Quotes {
        String version();
    }
}
