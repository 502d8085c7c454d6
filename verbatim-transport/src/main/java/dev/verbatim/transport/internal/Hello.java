package dev.verbatim.transport.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The handshake message both sides send when a connection opens: who they are and the receive
 * window they offer (the receiver dictates the window, J-RPC §5.2). Fixed 32-byte head then an
 * optional ASCII name (the shm window file), little-endian:
 *
 * <pre>
 *  0       4        6      8      16          20         24       26      28             32
 *  | magic | version| kind | pid  | areaCount | areaSize | nameLen| flags | peerTimeoutMs | name
 * </pre>
 *
 * <p>{@code flags} took two of the reserved zero bytes, so the version stays 1: a peer that does
 * not use a secret sends exactly the bytes it sent before flags existed. The flag
 * {@link #FLAG_SECRET} says "this side holds a shared secret and requires the peer to prove it;
 * a 32-byte nonce follows this message" ({@link SecretExchange}). Announcing it in the handshake,
 * rather than just starting the challenge, lets a side whose configuration differs fail at once
 * with a reason instead of waiting for bytes that will never come. Unknown flag bits and non-zero
 * reserved bytes are refused, so a later flag cannot be silently ignored by this version.
 *
 * <p>{@code peerTimeoutMs} (u32, tcp) took the last reserved bytes the same way: "this side declares
 * you gone after this many milliseconds without a frame from you; send one at least every quarter
 * of it" (docs/transport.md §4.5). Zero, the bytes of before, asks for nothing. {@link #FLAG_BUSY},
 * in a WELCOME, says the listener holds its limit of connections and closes (§6.1).
 */
public record Hello(int kind, long pid, int areaCount, int areaSize, String name, int flags, int peerTimeoutMs) {
    public static final int MAGIC = 0x4842_5256; // "VRBH"
    public static final int VERSION = 1;
    public static final int KIND_HELLO = 1;
    public static final int KIND_WELCOME = 2;
    public static final int HEAD = 32;
    public static final int MAX_NAME = 200;
    public static final int FLAGS_OFFSET = 26;
    /** The sender holds a shared secret (tcp) and a {@link SecretExchange#NONCE}-byte nonce follows. */
    public static final int FLAG_SECRET = 1;
    /**
     * Sent only by a TLS listener, in a plaintext WELCOME, to a connector that said a plaintext
     * HELLO: "this listener requires TLS"; the listener closes after it (docs/transport.md §5.2).
     */
    public static final int FLAG_TLS = 2;
    /**
     * Sent only by a listener, in a WELCOME, when it holds its limit of open connections: "busy,
     * try later"; the listener closes after it and the connector fails with {@code BUSY}.
     */
    public static final int FLAG_BUSY = 4;
    private static final int KNOWN_FLAGS = FLAG_SECRET | FLAG_TLS | FLAG_BUSY;
    public static final int PEER_TIMEOUT_OFFSET = 28;
    /** A peer may not ask for heartbeats more often than every 50 ms (a quarter of 200 ms). */
    static final int MIN_PEER_TIMEOUT_MS = 200;

    /** A handshake message without flags. */
    public Hello(int kind, long pid, int areaCount, int areaSize, String name) {
        this(kind, pid, areaCount, areaSize, name, 0, 0);
    }

    /** A handshake message that asks for no heartbeats. */
    public Hello(int kind, long pid, int areaCount, int areaSize, String name, int flags) {
        this(kind, pid, areaCount, areaSize, name, flags, 0);
    }

    /** Whether the sender (a listener) holds its limit of connections and is closing this one. */
    public boolean busy() {
        return (flags & FLAG_BUSY) != 0;
    }

    /** Whether the sender requires the peer to prove a shared secret. */
    public boolean requiresSecret() {
        return (flags & FLAG_SECRET) != 0;
    }

    /** Whether the sender (a listener) requires TLS and is closing this plaintext connection. */
    public boolean requiresTls() {
        return (flags & FLAG_TLS) != 0;
    }

    public ByteBuffer encode() {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(HEAD + n.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort((short) VERSION).putShort((short) kind).putLong(pid)
                .putInt(areaCount).putInt(areaSize).putShort((short) n.length).putShort((short) flags)
                .putInt(peerTimeoutMs);
        b.position(HEAD);
        b.put(n).flip();
        return b;
    }

    /** Decodes the head; returns the name length still to read. Throws with a reason on bad input. */
    public static int nameLength(ByteBuffer head) throws ProtocolViolation {
        head.order(ByteOrder.LITTLE_ENDIAN);
        if (head.getInt(0) != MAGIC) {
            throw new ProtocolViolation("not a Verbatim connection (bad magic 0x" + Integer.toHexString(head.getInt(0)) + ")");
        }
        int version = head.getShort(4) & 0xFFFF;
        if (version != VERSION) {
            throw new ProtocolViolation("protocol version " + version + " is not supported (this side speaks " + VERSION + ")");
        }
        int n = head.getShort(24) & 0xFFFF;
        if (n > MAX_NAME) {
            throw new ProtocolViolation("a name of " + n + " bytes in the handshake");
        }
        int flags = head.getShort(FLAGS_OFFSET) & 0xFFFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new ProtocolViolation("unknown handshake flags 0x" + Integer.toHexString(flags));
        }
        if (head.getInt(PEER_TIMEOUT_OFFSET) < 0) {
            throw new ProtocolViolation("a peer timeout of " + Integer.toUnsignedString(head.getInt(PEER_TIMEOUT_OFFSET))
                    + " ms in the handshake");
        }
        return n;
    }

    public static Hello decode(ByteBuffer head, ByteBuffer name, int expectedKind) throws ProtocolViolation {
        head.order(ByteOrder.LITTLE_ENDIAN);
        int kind = head.getShort(6) & 0xFFFF;
        if (kind != expectedKind) {
            throw new ProtocolViolation("handshake message kind " + kind + " where " + expectedKind + " was expected");
        }
        int count = head.getInt(16);
        int size = head.getInt(20);
        String problem = AreaDescriptor.checkGeometry(count, size);
        if (problem != null) {
            throw new ProtocolViolation("the peer offered a receive window whose " + problem);
        }
        byte[] bytes = new byte[name.remaining()];
        name.get(bytes);
        String s = new String(bytes, StandardCharsets.US_ASCII);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '-' || c == '_')) {
                throw new ProtocolViolation("a malformed name in the handshake");
            }
        }
        int peerTimeout = head.getInt(PEER_TIMEOUT_OFFSET);
        if (peerTimeout != 0 && peerTimeout < MIN_PEER_TIMEOUT_MS) {
            throw new ProtocolViolation("a peer timeout of " + peerTimeout + " ms, below the minimum of "
                    + MIN_PEER_TIMEOUT_MS);
        }
        return new Hello(kind, head.getLong(8), count, size, s, head.getShort(FLAGS_OFFSET) & 0xFFFF, peerTimeout);
    }
}
