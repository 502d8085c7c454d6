package dev.verbatim.examples;

// example:imports
import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
// end

/**
 * The README's wire example: a graph written straight into a segment, validated in place, read through
 * views, and materialized. Run: {@code java -cp ... dev.verbatim.examples.WireExample}; it needs no
 * {@code --enable-native-access} (the buffer and wire modules call no restricted method).
 */
public final class WireExample {
    private WireExample() {}

    // example:types
    // The sender's types: plain records (or classes with fields). No IDL, no annotations, no registration.
    public enum Side { BUY, SELL }
    public record Order(long id, String symbol, Side side, int quantity, double price) implements OrderView {}
    public record Book(String venue, List<Order> orders, long[] timestamps) {}

    // The receiver's views: public interfaces whose methods are getters (types they reach must be public too).
    public interface OrderView { long id(); CharSequence symbol(); Side side(); int quantity(); double price(); }
    public interface BookView { CharSequence venue(); List<OrderView> orders(); ArrayView.OfLong timestamps(); }
    // end

    public static void main(String[] args) {
        // example:usage
        Book book = new Book("XNAS", List.of(new Order(1, "ACME", Side.BUY, 100, 101.5),
                new Order(2, "ACME", Side.SELL, 50, 101.75)), new long[] {1_700_000_000_000L, 1_700_000_000_250L});

        WireWriter writer = new WireWriter();                      // one per thread, reused
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(writer.sizeOf(book), 8);   // any segment: off-heap, mapped, heap
            long n = writer.write(book, segment, 0);               // marshalled straight into it

            // The receiver: validate once, in place, then read where the bytes landed ...
            Message m = new WireReader().validate(segment.asSlice(0, n));     // WireFormatException on bad bytes
            BookView v = m.view(BookView.class);                   // zero-copy: fields are read from the segment
            OrderView first = v.orders().get(0);
            System.out.println(v.venue() + ": order " + first.id() + " " + first.side() + " " + first.symbol()
                    + ", " + v.orders().size() + " orders, last stamp " + v.timestamps().get(1));

            // ... or copy it into heap objects (sharing and cycles kept).
            Book copy = m.materialize(Book.class);
            System.out.println("materialized: " + copy.orders().equals(book.orders()));
        }
        // end
    }
}
