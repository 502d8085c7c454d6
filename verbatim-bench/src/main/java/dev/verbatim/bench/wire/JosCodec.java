package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.harness.Blackhole;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;

/**
 * Java Object Serialization, reusing its streams as far as the API allows: one
 * {@link ObjectOutputStream} and one {@link ObjectInputStream} per "connection", as a long-lived
 * socket stream would have, so the stream header and the streams' buffers are paid once. A message
 * is {@code reset()} (the one-byte {@code TC_RESET} marker, which clears the handle table so the
 * next message carries its class descriptors and objects again) followed by {@code writeObject}.
 * The output goes into a reused byte array; the input stream is rewound onto the received message
 * before each {@code readObject}.
 */
public final class JosCodec implements Codec {
    private final ExposedBytesOutput bytesOut = new ExposedBytesOutput(4096);
    private final ObjectOutputStream out;
    private final RewindableInput bytesIn = new RewindableInput();
    private final ObjectInputStream in;
    private byte[] received = new byte[0];

    public JosCodec() {
        try {
            out = new ObjectOutputStream(bytesOut);
            out.flush();
            bytesIn.set(bytesOut.buffer(), bytesOut.size()); // the stream header, read once
            in = new ObjectInputStream(bytesIn);
            bytesOut.reset();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String name() {
        return "jos";
    }

    @Override
    public long marshal(Object root) throws IOException {
        bytesOut.reset();
        out.reset();
        out.writeObject(root);
        out.flush();
        return bytesOut.size();
    }

    @Override
    public void marshalBatch(Object root, int n, Blackhole bh) throws IOException {
        for (int i = 0; i < n; i++) {
            bh.consume(marshal(root));
        }
    }

    @Override
    public long receive(Object root) throws IOException {
        int size = (int) marshal(root);
        received = Arrays.copyOf(bytesOut.buffer(), size);
        return size;
    }

    @Override
    public Object decode() throws IOException, ClassNotFoundException {
        bytesIn.set(received, received.length);
        return in.readObject();
    }

    @Override
    public long unmarshal(MessageKind kind) throws IOException, ClassNotFoundException {
        return Graphs.touch(decode());
    }

    @Override
    public void unmarshalBatch(MessageKind kind, int n, Blackhole bh) throws IOException, ClassNotFoundException {
        for (int i = 0; i < n; i++) {
            bh.consume(unmarshal(kind));
        }
    }

    /** A {@link ByteArrayOutputStream} whose buffer can be read without a copy. */
    private static final class ExposedBytesOutput extends ByteArrayOutputStream {
        ExposedBytesOutput(int size) {
            super(size);
        }

        byte[] buffer() {
            return buf;
        }
    }

    /** An input stream over one message that can be pointed at the next one (or the same again). */
    private static final class RewindableInput extends InputStream {
        private byte[] buf = new byte[0];
        private int pos;
        private int end;

        void set(byte[] bytes, int length) {
            buf = bytes;
            pos = 0;
            end = length;
        }

        @Override
        public int read() {
            return pos < end ? buf[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos >= end) {
                return -1;
            }
            int n = Math.min(len, end - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() {
            return end - pos;
        }
    }
}
