package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Pair;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Pso;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.bench.harness.Blackhole;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.logging.LoggerFactory;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Apache Fory in Java mode: classes registered (registration required), reference tracking ON so
 * that sharing and cycles survive as they do in Verbatim ({@code fory}), or OFF ({@code fory-noref}:
 * for the payloads only, which have neither), code generation as by default
 * (synchronous, so the generated serializers are in place before any timing); one
 * {@link MemoryBuffer} reused for output and one for input.
 *
 * <p>Fory's default maximum nesting depth (50) refuses to read a 500-element linked list, which
 * it reads recursively; it is raised to {@value #MAX_DEPTH} here.
 */
public final class ForyCodec implements Codec {
    static final int MAX_DEPTH = 4096;

    static {
        LoggerFactory.disableLogging(); // Fory logs to stdout, which would corrupt --json output
    }

    private final Fory fory;
    private final boolean references;
    private final MemoryBuffer out = MemoryBuffer.newHeapBuffer(4096);
    private MemoryBuffer in = MemoryBuffer.fromByteArray(new byte[0]);

    /** With reference tracking on: the like-for-like column. */
    public ForyCodec() {
        this(true);
    }

    public ForyCodec(boolean references) {
        this.references = references;
        fory = Fory.builder()
                .withLanguage(Language.JAVA)
                .withRefTracking(references)
                .requireClassRegistration(true)
                .withMaxDepth(MAX_DEPTH)
                .build();
        fory.register(ListNode.class);
        fory.register(Pso.class);
        fory.register(Pair.class);
        for (Class<?> c : new Class<?>[] {Trade.class, Trade.Side.class, Profile.class, Profile.Person.class,
                Profile.Address.class, EventBatch.class, EventBatch.Event.class, EventBatch.Kind.class}) {
            fory.register(c);
        }
    }

    @Override
    public String name() {
        return references ? "fory" : "fory-noref";
    }

    @Override
    public long marshal(Object root) {
        out.writerIndex(0);
        fory.serialize(out, root);
        return out.writerIndex();
    }

    @Override
    public void marshalBatch(Object root, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(marshal(root));
        }
    }

    @Override
    public long receive(Object root) {
        int size = (int) marshal(root);
        in = MemoryBuffer.fromByteArray(out.getBytes(0, size));
        return size;
    }

    /** {@code root} serialized into a fresh array (as a caller sends it: {@code shm/fory} of {@code bench rpc}). */
    public byte[] toBytes(Object root) {
        int size = (int) marshal(root);
        return out.getBytes(0, size);
    }

    /** The object graph serialized in {@code bytes}, read back. */
    public Object fromBytes(byte[] bytes) {
        return fory.deserialize(bytes);
    }

    @Override
    public Object decode() {
        in.readerIndex(0);
        return fory.deserialize(in);
    }

    @Override
    public long unmarshal(MessageKind kind) {
        return Graphs.touch(decode());
    }

    @Override
    public void unmarshalBatch(MessageKind kind, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(unmarshal(kind));
        }
    }
}
