package dev.verbatim.examples;

// example:imports
import dev.verbatim.examples.WireExample.Order;
import dev.verbatim.examples.WireExample.OrderView;
import dev.verbatim.examples.WireExample.Side;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
// end

/**
 * The README's connection example: a receiver and a sender in two threads of one process (they could
 * be two processes: only the address joins them). Argument: the address, {@code shm:NAME} (default
 * {@code shm:orders-example}) or {@code tcp://127.0.0.1:PORT}. The shm transport needs native access
 * for its futex: run with {@code --enable-native-access=ALL-UNNAMED}.
 */
public final class ConnectionExample {
    private ConnectionExample() {}

    public static void main(String[] args) throws Exception {
        String address = args.length > 0 ? args[0] : "shm:orders-example";
        try (Listener listener = Transport.listen(address)) {
            Thread receiver = Thread.ofPlatform().start(() -> receive(listener));
            send(listener.address());
            receiver.join();
        }
    }

    static void receive(Listener listener) {
        // example:receive
        WireReader reader = new WireReader();
        try (Connection c = listener.accept(Duration.ofSeconds(5))) {
            int handled = 0;
            while (handled == 0) {                                     // buffer API: in place, no allocation, no copy
                handled = c.poll(d -> {
                    OrderView o = reader.validate(d.payload()).view(OrderView.class);
                    System.out.println("order " + o.id() + " " + o.symbol() + " " + o.quantity());
                    return DeliveryHandler.Action.STOP;                // the order only: the rest waits for take()
                }, 64);
            }
            Delivery kept = c.take(Duration.ofSeconds(5));             // or hold a delivery past its handling ...
            System.out.println("region of " + kept.region(0).byteSize() + " bytes, then " + kept.length() + " bytes");
            kept.release();                                            // ... and release it when done
            byte[] copy = c.receive(Duration.ofSeconds(5));            // copying API
            c.send(copy, 0, copy.length);                              // echo it back
        }
        // end
    }

    static void send(String address) {
        // example:send
        Order order = new Order(42, "ACME", Side.BUY, 100, 101.5);
        WireWriter writer = new WireWriter();
        try (Connection c = Transport.connect(address)) {
            Claim claim = c.claim(Math.toIntExact(writer.sizeOf(order)));  // space in the receiver's memory (shm) ...
            long n = writer.write(order, claim.segment(), 0);              // ... where the sender marshals directly
            claim.commit(Math.toIntExact(n));                              // one release store; a futex wake only if the peer sleeps

            long[] big = new long[4096];
            c.writeRegion(MemorySegment.ofArray(big));                     // one-sided write ahead of the next message (J-RPC §4.4)
            c.send(new byte[] {1, 2, 3}, 0, 3);                            // the message the region comes with

            byte[] hello = "hello".getBytes();
            c.send(hello, 0, hello.length);                                // copying API
            byte[] reply = c.receive(Duration.ofSeconds(5));
            System.out.println("echo: " + new String(reply));
        }
        // end
    }
}
