package dev.verbatim.cli;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

/**
 * {@code ./verbatim demo --wire}: a tour of the wire format, each step checked. Exits
 * non-zero if any step misbehaves.
 */
public final class WireTour {
    private WireTour() {}

    // The sender's types: plain records and a class, no IDL, no annotations.
    public enum Side { BUY, SELL }
    public record Order(long id, String symbol, Side side, int quantity, double price) {}
    public record Book(String venue, List<Order> orders, long[] timestamps) {}
    public static final class Node { int value; Node next; }

    // The receiver's types: accessor interfaces of the same structure, read in place.
    public interface OrderView { long id(); CharSequence symbol(); Side side(); int quantity(); double price(); }
    public interface BookView { CharSequence venue(); List<OrderView> orders(); ArrayView.OfLong timestamps(); }
    public interface NodeView { int value(); NodeView next(); }

    // A newer receiver: one field more, one field fewer.
    public record OrderV2(long id, String symbol, Side side, int quantity, String trader) {}

    private static int failures;

    public static int run(String[] args, PrintStream out) {
        failures = 0;
        out.println("Verbatim wire-format tour\n");
        WireWriter writer = new WireWriter();
        WireReader reader = new WireReader();

        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < 1000; i++) orders.add(new Order(i, i % 2 == 0 ? "ACME" : "Ünïcode ✓", i % 3 == 0 ? Side.SELL : Side.BUY, 10 + i, 99.5 + i));
        long[] ts = new long[1000];
        for (int i = 0; i < ts.length; i++) ts[i] = 1_700_000_000_000L + i;
        Book book = new Book("XNAS", orders, ts);

        try (Arena arena = Arena.ofConfined()) {
            long size = writer.sizeOf(book);
            MemorySegment seg = arena.allocate(size, 8);
            long written = writer.write(book, seg, 0);
            step(out, "1. a record graph (1000 orders, 1000 timestamps) written straight into off-heap memory",
                    written == size, written + " bytes, " + Schema.describe(Order.class));

            long t0 = System.nanoTime();
            Message m = reader.validate(seg);
            long t1 = System.nanoTime();
            step(out, "2. validated in place, one pass over " + m.objectCount() + " objects", m.objectCount() == 1006,
                    (t1 - t0) / 1000 + " µs (first run, cold)");

            BookView v = m.view(BookView.class);
            OrderView o = v.orders().get(501);
            boolean viewOk = v.venue().toString().equals("XNAS") && o.id() == 501 && o.side() == Side.SELL
                    && o.symbol().toString().equals("Ünïcode ✓") && v.timestamps().get(999) == ts[999];
            step(out, "3. read through a view interface, no copy", viewOk,
                    "orders[501] = " + o.id() + " " + o.symbol() + " " + o.side() + " x" + o.quantity());

            Book copy = m.materialize(Book.class);
            step(out, "4. materialized to records (by-copy)", copy.orders().equals(orders) && copy.timestamps()[7] == ts[7],
                    "equals the original: " + copy.orders().equals(orders));

            OrderV2 newer = reader.validate(MemorySegment.ofArray(writer.toByteArray(orders.get(3)))).materialize(OrderV2.class);
            step(out, "5. read by a newer version of the type (field added, field removed)",
                    newer.id() == 3 && newer.trader() == null && newer.symbol().equals("Ünïcode ✓"), newer.toString());

            Node head = null;
            for (int i = 999_999; i >= 0; i--) {
                Node n = new Node();
                n.value = i;
                n.next = head;
                head = n;
            }
            long listSize = writer.sizeOf(head);
            MemorySegment listSeg = arena.allocate(listSize, 8);
            writer.write(head, listSeg, 0);
            long sum = 0;
            int count = 0;
            for (NodeView n = reader.validate(listSeg).view(NodeView.class); n != null; n = n.next()) {
                sum += n.value();
                count++;
            }
            step(out, "6. a million-element linked list: written, validated, walked (no recursion anywhere)",
                    count == 1_000_000 && sum == 499_999_500_000L, listSize + " bytes, sum " + sum);

            byte[] bad = writer.toByteArray(orders.get(0));
            bad[bad.length - 12] ^= 0x40; // the root's object-table entry
            String rule;
            try {
                reader.validate(MemorySegment.ofArray(bad));
                rule = null;
            } catch (WireFormatException e) {
                rule = e.getMessage();
            }
            step(out, "7. a damaged message is refused with the offset and the rule", rule != null, String.valueOf(rule));

            String why;
            try {
                reader.validate(MemorySegment.ofArray(writer.toByteArray(orders.get(0)))).materialize(Node.class);
                why = null;
            } catch (WireSchemaException e) {
                why = e.getMessage();
            }
            step(out, "8. a message is only ever read as a type of the same structure", why != null, String.valueOf(why));

            byte[] small = writer.toByteArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
            step(out, "9. a 10-byte array costs " + small.length + " bytes on the wire", small.length <= 37,
                    HexFormat.ofDelimiter(" ").formatHex(small));
        }
        out.println();
        out.println(failures == 0 ? "demo: all steps behaved" : "demo: " + failures + " step(s) misbehaved");
        return failures == 0 ? 0 : 1;
    }

    private static void step(PrintStream out, String what, boolean ok, String detail) {
        if (!ok) failures++;
        out.println((ok ? "  ok   " : "  FAIL ") + what);
        out.println("         " + detail);
    }
}
