package dev.verbatim.cli.soak;

import dev.verbatim.rpc.Remote;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * What {@code ./verbatim soak}'s clients call and its server exports: one method per kind of call the soak
 * mixes, each with an answer the client can check ({@link #expectedTotal}, {@link #crc}), so that a wrong answer
 * is told from a right one.
 */
public final class SoakApi {
    private SoakApi() {}

    /** The export's name. */
    public static final String NAME = "soak";

    public enum Kind { SMALL, LARGE }

    /** A record by copy: echoed back whole. */
    public record Item(long id, String name, Kind kind, double weight, List<String> tags) {}

    /** A batch whose server side reads it in place ({@link BatchView}). */
    public record Batch(long id, List<Item> items) {}

    public interface ItemView {
        long id();

        CharSequence name();

        double weight();
    }

    public interface BatchView {
        long id();

        List<ItemView> items();
    }

    /** Passed by reference: the server calls it back. */
    public interface Counter extends Remote {
        long add(long x);
    }

    public interface Service {
        void ping();

        Item echo(Item item);

        /** The batch's id plus the sum of its items' ids, read through views. */
        long total(BatchView batch);

        /** The sum of the ints (an 8 KiB array). */
        long sum(int[] values);

        /** CRC-32C of the bytes (1 MiB: a one-sided write). */
        long crc(byte[] bytes);

        /** Calls {@code counter.add(i)} for i = 1..n and returns the last answer. */
        long callBack(Counter counter, int n);

        /** Asynchronous: completes with x * x. */
        CompletableFuture<Long> square(long x);

        /** Sleeps {@code millis} (to be timed out by the caller). */
        void sleep(int millis) throws InterruptedException;
    }

    /** What {@link Service#total} answers for {@code b}. */
    public static long expectedTotal(Batch b) {
        long t = b.id();
        for (Item i : b.items()) t += i.id();
        return t;
    }

    /** CRC-32C of {@code bytes}. */
    public static long crc(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return c.getValue();
    }

    /** The server's implementation. */
    static final class ServiceImpl implements Service {
        @Override
        public void ping() {
        }

        @Override
        public Item echo(Item item) {
            return item;
        }

        @Override
        public long total(BatchView batch) {
            long t = batch.id();
            for (ItemView i : batch.items()) t += i.id();
            return t;
        }

        @Override
        public long sum(int[] values) {
            long s = 0;
            for (int v : values) s += v;
            return s;
        }

        @Override
        public long crc(byte[] bytes) {
            return SoakApi.crc(bytes);
        }

        @Override
        public long callBack(Counter counter, int n) {
            long last = 0;
            for (int i = 1; i <= n; i++) last = counter.add(i);
            return last;
        }

        @Override
        public CompletableFuture<Long> square(long x) {
            return CompletableFuture.completedFuture(x * x);
        }

        @Override
        public void sleep(int millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    }
}
