package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.Pair;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every codec of the wire suite round-trips every case, repeatedly through its reused streams. No timing. */
class CodecRoundTripTest {

    /** One codec instance through every case in turn (as a connection would see them), then a shared ring. */
    private static void roundTrips(Codec codec) throws Exception {
        roundTrips(codec, WireCase.all());
        codec.receive(Graphs.sharedRing());
        Pair back = assertInstanceOf(Pair.class, codec.decode());
        assertTrue(Graphs.isSharedRing(back), codec.name() + " keeps sharing and cycles");
    }

    private static void roundTrips(Codec codec, List<WireCase> cases) throws Exception {
        for (WireCase c : cases) {
            String where = codec.name() + " on " + c.name();
            long size = codec.receive(c.root());
            assertTrue(size > 0, where);
            for (int round = 0; round < 2; round++) {
                assertNull(codec.verifyReceived(c.root()), where);
                assertNull(Graphs.diff(c.root(), codec.decode()), where);
                assertEquals(Graphs.touch(c.root()), codec.unmarshal(c.kind()), where);
                assertEquals(size, codec.marshal(c.root()), where);
            }
        }
    }

    @Test
    void javaSerialization() throws Exception {
        roundTrips(new JosCodec());
    }

    @Test
    void kryo() throws Exception {
        roundTrips(new KryoCodec());
    }

    @Test
    void fory() throws Exception {
        roundTrips(new ForyCodec());
    }

    @Test
    void kryoWithoutReferenceTrackingOnThePayloads() throws Exception {
        roundTrips(new KryoCodec(false), WireCase.payloads());
    }

    @Test
    void foryWithoutReferenceTrackingOnThePayloads() throws Exception {
        roundTrips(new ForyCodec(false), WireCase.payloads());
    }

    @Test
    void theFormatWrittenAndReadByHandOnThePayloads() throws Exception {
        roundTrips(new HandCodec(false), WireCase.payloads());
        roundTrips(new HandCodec(true), WireCase.payloads());
    }

    @Test
    void verbatimViews() throws Exception {
        roundTrips(new VerbatimCodec());
    }

    @Test
    void verbatimMaterialize() throws Exception {
        roundTrips(new VerbatimMaterializeCodec());
    }

    @Test
    void graphsTouchEveryField() {
        assertEquals(1 + 8 + 15, Graphs.touch(Graphs.list(3)));
        assertEquals(3 + 7 + (byte) (2 * 31 + 7), Graphs.touch(Graphs.bytes(3)));
        assertEquals(0, Graphs.touch(new byte[0]));
    }
}
