package dev.verbatim.transport.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared-secret exchange of a tcp connection (docs/transport.md §5.1): both peers prove they
 * hold the secret before the connection is handed out, without the secret crossing the network.
 * Runs only when both {@link Hello}s carry {@link Hello#FLAG_SECRET}.
 *
 * <pre>
 *  connector                                   listener
 *  HELLO  (FLAG_SECRET) | nonceC (32)   ---->
 *                                       &lt;----  WELCOME (FLAG_SECRET) | nonceL (32)
 *  proofC (32)                          ---->  checks proofC; on a mismatch closes, sending nothing more
 *                                       &lt;----  proofL (32)
 *  checks proofL; the connection is returned        the connection is queued for accept()
 *
 *  proofC = HMAC-SHA256(secret, "verbatim tcp connector v1" 0x00 | nonceC | nonceL | HELLO | WELCOME)
 *  proofL = HMAC-SHA256(secret, "verbatim tcp acceptor v1"  0x00 | nonceC | nonceL | HELLO | WELCOME)
 * </pre>
 *
 * HELLO and WELCOME are the handshake messages as they crossed the wire (head and name). Why
 * this shape:
 * <ul>
 *   <li>Each side contributes a fresh random nonce, so a proof recorded from an earlier
 *       connection is worthless in a new one (replay), whichever side the recorder plays.</li>
 *   <li>The two directions use different labels, so a proof cannot be reflected back to the side
 *       that made it; the labels are NUL-terminated so neither input is a prefix-shift of the other.</li>
 *   <li>The listener checks the connector's proof before it sends its own: a client that does not
 *       hold the secret gets nothing computed with the secret, so the listener cannot be used as
 *       an oracle. The connector, in turn, only ever proves itself over a nonce of its own too, so
 *       a fake listener learns a connector-labelled proof that no real listener will accept.</li>
 *   <li>The nonces ride on the handshake messages, so authentication costs one extra round trip
 *       (proofC, proofL), not two.</li>
 *   <li>Binding both handshake messages makes a path that rewrote either one (the offered windows,
 *       the flags) fail the proof.</li>
 * </ul>
 * What it does not give: confidentiality or integrity of the frames that follow; whoever can
 * rewrite the traffic after the exchange can still do so. Thread-safe (stateless).
 */
public final class SecretExchange {
    private SecretExchange() {}

    /** Bytes of a nonce. */
    public static final int NONCE = 32;
    /** Bytes of a proof (an HMAC-SHA256). */
    public static final int PROOF = 32;
    /** The label of the proof the connector sends. */
    public static final String CONNECTOR_LABEL = "verbatim tcp connector v1";
    /** The label of the proof the listener sends. */
    public static final String ACCEPTOR_LABEL = "verbatim tcp acceptor v1";

    private static final String HMAC = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A fresh random nonce. */
    public static byte[] nonce() {
        byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    /** The proof of {@code label}'s side for this exchange. */
    public static byte[] proof(byte[] secret, String label, byte[] nonceC, byte[] nonceL, byte[] hello, byte[] welcome) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) 0);
            mac.update(nonceC);
            mac.update(nonceL);
            mac.update(hello);
            mac.update(welcome);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + HMAC + ", which every Java SE platform provides", e);
        }
    }

    /** Whether {@code received} is the expected proof; in time independent of where they differ. */
    public static boolean matches(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }
}
