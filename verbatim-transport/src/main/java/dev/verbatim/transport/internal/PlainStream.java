package dev.verbatim.transport.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** The socket itself, as a {@link TcpStream}: every call goes straight to the channel. */
public record PlainStream(SocketChannel socket) implements TcpStream {
    @Override
    public int read(ByteBuffer dst) throws IOException {
        return socket.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return socket.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return socket.write(srcs);
    }

    @Override
    public boolean flush() {
        return true;
    }

    @Override
    public boolean hasBufferedInput() {
        return false;
    }

    @Override
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
