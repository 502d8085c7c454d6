package dev.verbatim.examples;

// example:imports
import dev.verbatim.examples.WireExample.Book;
import dev.verbatim.examples.WireExample.BookView;
import dev.verbatim.examples.WireExample.Order;
import dev.verbatim.examples.WireExample.OrderView;
import dev.verbatim.examples.WireExample.Side;
import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.file.WireFile;
import dev.verbatim.wire.file.WireLog;
import dev.verbatim.wire.file.WireLogWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
// end

/**
 * The README's stored-file example: a graph written to a file and mapped back, and a log appended to
 * (created on the first run, reopened on the next ones) and read. Run it twice: the log grows.
 * Argument: the directory for the two files (default: the working directory).
 */
public final class FileExample {
    private FileExample() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : ".");
        Path path = dir.resolve("book.vbm");
        Path logPath = dir.resolve("orders.vbl");
        Book book = new Book("XNAS", List.of(new Order(1, "ACME", Side.BUY, 100, 101.5)), new long[] {42L, 43L});
        Order order = new Order(7, "ACME", Side.SELL, 10, 102.0);

        // example:file
        WireFile.write(path, book);                       // atomic: temp file, fsync, rename; old file or new, never half
        try (WireFile f = WireFile.open(path)) {          // later, any process: map read-only + validate once
            BookView v = f.view(BookView.class);          // zero-copy views of the mapping
            ArrayView.OfLong ts = v.timestamps();         // a primitive array read in place (Jaguar's PSOArray)
            Book copy = f.materialize(Book.class);        // or heap copies, which outlive the file
            System.out.println(v.venue() + " " + ts.get(0) + " " + copy.orders().size());
        }                                                 // unmapped: every view now throws IllegalStateException
        // end

        // example:log
        try (WireLogWriter w = Files.exists(logPath)
                ? WireLogWriter.open(logPath, false)                      // append to the existing log
                : WireLogWriter.create(logPath, 64 << 20, false)) {        // or create one of fixed capacity
            if (w.append(order) == WireLogWriter.FULL) {                  // committed whole, or FULL
                System.out.println("the log is full");
            }
        }
        try (WireLog log = WireLog.open(logPath)) {       // readers, in any process, even while a writer appends
            for (Message m; (m = log.next()) != null; ) {
                OrderView o = m.view(OrderView.class);
                System.out.println("record " + log.recordsRead() + ": order " + o.id() + " " + o.side());
            }
        }
        // end
    }
}
