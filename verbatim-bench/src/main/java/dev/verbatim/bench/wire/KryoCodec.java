package dev.verbatim.bench.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Pair;
import dev.verbatim.bench.fixtures.Pso;
import dev.verbatim.bench.harness.Blackhole;

import java.util.Arrays;

/**
 * Kryo 5: classes registered (registration required), reference tracking ON so that sharing and
 * cycles survive as they do in Verbatim, {@code writeClassAndObject}/{@code readClassAndObject}
 * so the message names its root type as a Verbatim message does; one {@link Output} and one
 * {@link Input} reused for every message.
 */
public final class KryoCodec implements Codec {
    private final Kryo kryo = new Kryo();
    private final Output out = new Output(4096, -1);
    private final Input in = new Input();
    private byte[] received = new byte[0];

    public KryoCodec() {
        kryo.setRegistrationRequired(true);
        kryo.setReferences(true);
        kryo.register(byte[].class);
        kryo.register(ListNode.class);
        kryo.register(Pso.class);
        kryo.register(Pair.class);
    }

    @Override
    public String name() {
        return "kryo";
    }

    @Override
    public long marshal(Object root) {
        out.reset();
        kryo.writeClassAndObject(out, root);
        return out.position();
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
        received = Arrays.copyOf(out.getBuffer(), size);
        return size;
    }

    @Override
    public Object decode() {
        in.setBuffer(received, 0, received.length);
        return kryo.readClassAndObject(in);
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
