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
 *  0       4        6      8      16          20         24       26
 *  | magic | version| kind | pid  | areaCount | areaSize | nameLen| 0... | name
 * </pre>
 */
public record Hello(int kind, long pid, int areaCount, int areaSize, String name) {
    public static final int MAGIC = 0x4842_5256; // "VRBH"
    public static final int VERSION = 1;
    public static final int KIND_HELLO = 1;
    public static final int KIND_WELCOME = 2;
    public static final int HEAD = 32;
    public static final int MAX_NAME = 200;

    public ByteBuffer encode() {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(HEAD + n.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort((short) VERSION).putShort((short) kind).putLong(pid)
                .putInt(areaCount).putInt(areaSize).putShort((short) n.length);
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
        return new Hello(kind, head.getLong(8), count, size, s);
    }
}
