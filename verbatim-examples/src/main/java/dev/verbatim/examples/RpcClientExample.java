package dev.verbatim.examples;

// example:imports
import dev.verbatim.examples.Quotes.Quote;
import dev.verbatim.examples.WireExample.Order;
import dev.verbatim.examples.WireExample.Side;
import dev.verbatim.rpc.Node;
// end

/**
 * The README's RPC client: looks up the server's {@link Quotes} and calls it. Argument: the server's
 * address (default {@code shm:quotes-example}). Run with {@code --enable-native-access=ALL-UNNAMED}.
 */
public final class RpcClientExample {
    private RpcClientExample() {}

    public static void main(String[] args) throws InterruptedException {
        String address = args.length > 0 ? args[0] : "shm:quotes-example";
        // example:client
        try (Node client = Node.create()) {
            Quotes q = client.lookup(address, "quotes", Quotes.class);       // a generated proxy
            Order order = new Order(42, "ACME", Side.BUY, 100, 101.5);
            Quote best = q.quote(order);                                      // a call, as if local
            q.submit(order);                                                  // the server reads it in place
            System.out.println(best + ", submitted");
        }
        // end
        try (Node client = Node.create()) {
            Quotes q = client.lookup(address, "quotes", Quotes.class);
            for (int i = 0; i < 500 && q.processed() < 1; i++) {
                Thread.sleep(10);
            }
            System.out.println("processed " + q.processed());
        }
    }
}
