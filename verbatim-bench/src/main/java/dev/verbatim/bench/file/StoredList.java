package dev.verbatim.bench.file;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.wire.file.WireFile;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The stored linked list: {@code n} {@link ListNode}s written once as a Verbatim graph file and once with Java
 * serialization, and the operations the suite times on them. Java serialization recurses once per list
 * element (reading and writing), so it runs on a thread whose stack is deep enough ({@link #onDeepStack}).
 */
final class StoredList {
    /** Stack for Java serialization of a million-element list: about 1 KiB per element, with room to spare. */
    static final long DEEP_STACK_BYTES = 4L << 30;
    private static final int WARM_UP_LENGTH = 20_000;
    private static final int WARM_UP_ROUNDS = 40;

    final int n;
    final Path verbatim;
    final Path jos;
    /** Sum of the values of the list, which every walk must find. */
    final long sum;

    private StoredList(int n, Path verbatim, Path jos, long sum) {
        this.n = n;
        this.verbatim = verbatim;
        this.jos = jos;
        this.sum = sum;
    }

    static StoredList create(Path dir, int n) throws Exception {
        ListNode head = Graphs.list(n);
        long sum = walk(head);
        Path v = dir.resolve("list.vbt");
        WireFile.write(v, head);
        Path j = dir.resolve("list.jos");
        onDeepStack(() -> {
            // Deep recursion runs in whatever code exists when it starts: compile serialization first on short lists.
            ListNode shortList = Graphs.list(WARM_UP_LENGTH);
            for (int i = 0; i < WARM_UP_ROUNDS; i++) {
                java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                    out.writeObject(shortList);
                }
                try (ObjectInputStream in = new ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
                    if (walk((ListNode) in.readObject()) != walk(shortList)) throw new IllegalStateException("jos warm-up read back another list");
                }
            }
            try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(Files.newOutputStream(j), 1 << 16))) {
                out.writeObject(head);
            }
            return null;
        });
        return new StoredList(n, v, j, sum);
    }

    /** Sum of the values of a heap list. */
    static long walk(ListNode head) {
        long s = 0;
        for (ListNode x = head; x != null; x = x.next) s += x.value;
        return s;
    }

    /** Sum of the values of a list read through views. */
    static long walk(ListNodeView head) {
        long s = 0;
        for (ListNodeView x = head; x != null; x = x.next()) s += x.value();
        return s;
    }

    /** Java serialization: read the whole list back from its file (must run on a deep stack). */
    ListNode readJos() throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(Files.newInputStream(jos), 1 << 16))) {
            return (ListNode) in.readObject();
        }
    }

    /** Runs {@code task} on a new platform thread with a {@link #DEEP_STACK_BYTES} stack and returns its result. */
    static <T> T onDeepStack(Callable<T> task) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                result.set(task.call());
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "deep-stack", DEEP_STACK_BYTES);
        t.start();
        t.join();
        Throwable e = failure.get();
        if (e instanceof Exception x) throw x;
        if (e instanceof Error x) throw x;
        return result.get();
    }
}
