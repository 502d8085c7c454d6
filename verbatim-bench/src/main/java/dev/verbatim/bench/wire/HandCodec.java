package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Payloads;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.bench.harness.Blackhole;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Verbatim's wire format written and read by hand, for the payloads only: the format's floor, measured in the run
 * beside the library so that a payload target the format itself cannot meet is seen as such (issue 19: "where the
 * format itself bounds a target, measure the bound"). It is one implementation, so its time is an upper bound of the
 * floor. {@code verbatim-hand} marshals with {@link HandWriter} (the bytes {@code WireWriter} writes, without its
 * identity index, queue and generated writers) and unmarshals with {@link HandReader}: the format's validation rules
 * for the payload's known schema ({@link HandValidator}), then every field read straight from the message.
 * {@code verbatim-hand-materialize} validates the same way and builds the heap payload. Messages live off-heap,
 * 64-byte aligned, as {@link VerbatimCodec}'s do.
 */
public final class HandCodec implements Codec {
    private final boolean materialize;
    private final HandWriter writer = new HandWriter();
    private final HandReader reader = new HandReader();
    private final Arena arena = Arena.ofAuto();
    private MemorySegment out = arena.allocate(1 << 16, 64);
    private MemorySegment received = MemorySegment.NULL;
    private int rootKind;

    public HandCodec(boolean materialize) {
        this.materialize = materialize;
    }

    @Override
    public String name() {
        return materialize ? "verbatim-hand-materialize" : "verbatim-hand";
    }

    @Override
    public long marshal(Object root) {
        return writer.write(root, out);
    }

    @Override
    public void marshalBatch(Object root, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(marshal(root));
        }
    }

    /** The suite's payloads fit the 64 KiB output; the message is copied to a segment of its own. */
    @Override
    public long receive(Object root) {
        long size = marshal(root);
        received = arena.allocate(size, 64);
        MemorySegment.copy(out, 0, received, 0, size);
        rootKind = switch (root) {
            case Trade _ -> HandSchema.TRADE;
            case Profile _ -> HandSchema.PROFILE;
            case EventBatch _ -> HandSchema.BATCH;
            default -> throw new IllegalArgumentException("the hand-written codec carries the payloads only: " + root.getClass());
        };
        return size;
    }

    @Override
    public long unmarshal(MessageKind kind) {
        reader.check(received, rootKind);
        if (materialize) {
            return switch (kind) {
                case TRADE -> Payloads.touch(reader.buildTrade());
                case PROFILE -> Payloads.touch(reader.buildProfile());
                case EVENTS -> Payloads.touch(reader.buildEvents());
                default -> throw new IllegalArgumentException("not a payload: " + kind);
            };
        }
        return switch (kind) {
            case TRADE -> reader.touchTrade();
            case PROFILE -> reader.touchProfile();
            case EVENTS -> reader.touchEvents();
            default -> throw new IllegalArgumentException("not a payload: " + kind);
        };
    }

    @Override
    public void unmarshalBatch(MessageKind kind, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(unmarshal(kind));
        }
    }

    @Override
    public Object decode() {
        return decode(received);
    }

    /** Validates {@code message} as this codec's received payload type and builds it (for tests: any message). */
    Object decode(MemorySegment message) {
        reader.check(message, rootKind);
        return switch (rootKind) {
            case HandSchema.TRADE -> reader.buildTrade();
            case HandSchema.PROFILE -> reader.buildProfile();
            default -> reader.buildEvents();
        };
    }

    /** The message received, for tests. */
    MemorySegment received() {
        return received;
    }

    /** Validates {@code message} as this codec's received payload type would be (for tests). */
    int check(MemorySegment message) {
        return reader.check(message, rootKind);
    }
}
