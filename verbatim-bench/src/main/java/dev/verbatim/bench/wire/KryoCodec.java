package dev.verbatim.bench.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Pair;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Pso;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.bench.harness.Blackhole;

import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.UUID;

/**
 * Kryo 5: classes registered (registration required), reference tracking ON so that sharing and
 * cycles survive as they do in Verbatim ({@code kryo}), or OFF ({@code kryo-noref}: for the
 * payloads only, which have neither), {@code writeClassAndObject}/{@code readClassAndObject}
 * so the message names its root type as a Verbatim message does; one {@link Output} and one
 * {@link Input} reused for every message. Records, {@link Instant}, {@link LocalDate} and
 * {@link UUID} with Kryo's own serializers (UUID's named at registration: it is not a default).
 */
public final class KryoCodec implements Codec {
    private final Kryo kryo = new Kryo();
    private final Output out = new Output(4096, -1);
    private final Input in = new Input();
    private final boolean references;
    private byte[] received = new byte[0];

    /** With reference tracking on: the like-for-like column. */
    public KryoCodec() {
        this(true);
    }

    public KryoCodec(boolean references) {
        this.references = references;
        kryo.setRegistrationRequired(true);
        kryo.setReferences(references);
        kryo.register(byte[].class);
        kryo.register(ListNode.class);
        kryo.register(Pso.class);
        kryo.register(Pair.class);
        for (Class<?> c : new Class<?>[] {Trade.class, Trade.Side.class, Instant.class, Profile.class,
                Profile.Person.class, Profile.Address.class, ArrayList.class, LinkedHashMap.class, LocalDate.class,
                EventBatch.class, EventBatch.Event.class, EventBatch.Kind.class}) {
            kryo.register(c);
        }
        kryo.register(UUID.class, new DefaultSerializers.UUIDSerializer()); // Kryo's own, not a default one
    }

    @Override
    public String name() {
        return references ? "kryo" : "kryo-noref";
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

    /** {@code root} serialized into a fresh array (as a caller sends it: {@code shm/kryo} of {@code bench rpc}). */
    public byte[] toBytes(Object root) {
        int size = (int) marshal(root);
        return Arrays.copyOf(out.getBuffer(), size);
    }

    /** The object graph serialized in {@code bytes}, read back (with this codec's {@link Input}). */
    public Object fromBytes(byte[] bytes) {
        in.setBuffer(bytes, 0, bytes.length);
        return kryo.readClassAndObject(in);
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
