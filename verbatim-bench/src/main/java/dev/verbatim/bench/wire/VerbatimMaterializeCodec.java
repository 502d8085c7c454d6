package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Payloads;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Pso;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.bench.harness.Blackhole;

/**
 * Verbatim, read by copy: {@link dev.verbatim.wire.WireReader#validate} then
 * {@link dev.verbatim.wire.Message#materialize} into heap objects, then every field read, as the
 * peers' unmarshal does. Marshal is the same as {@link VerbatimCodec}'s.
 */
public final class VerbatimMaterializeCodec implements Codec {
    private final VerbatimCodec v = new VerbatimCodec();

    @Override
    public String name() {
        return "verbatim-materialize";
    }

    @Override
    public long marshal(Object root) {
        return v.marshal(root);
    }

    @Override
    public void marshalBatch(Object root, int n, Blackhole bh) {
        v.marshalBatch(root, n, bh);
    }

    @Override
    public long receive(Object root) {
        return v.receive(root);
    }

    @Override
    public Object decode() {
        return v.reader.validate(v.received).materialize(v.receivedClass);
    }

    @Override
    public long unmarshal(MessageKind kind) {
        return switch (kind) {
            case BYTES -> Graphs.touch(v.reader.validate(v.received).materialize(byte[].class));
            case LIST -> Graphs.touch(v.reader.validate(v.received).materialize(ListNode.class));
            case PSO -> Graphs.touch(v.reader.validate(v.received).materialize(Pso.class));
            case TRADE -> Payloads.touch(v.reader.validate(v.received).materialize(Trade.class));
            case PROFILE -> Payloads.touch(v.reader.validate(v.received).materialize(Profile.class));
            case EVENTS -> Payloads.touch(v.reader.validate(v.received).materialize(EventBatch.class));
        };
    }

    @Override
    public void unmarshalBatch(MessageKind kind, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(unmarshal(kind));
        }
    }
}
