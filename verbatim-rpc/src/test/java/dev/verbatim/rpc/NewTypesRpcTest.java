package dev.verbatim.rpc;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The wire's newer types as RPC parameters and results, over shared memory and TCP: value types (java.time, UUID,
 * BigDecimal) and records holding maps, sets and optionals by copy; {@code Map}, {@code Set}, {@code List},
 * {@code Collection} and {@code Optional} on their own, with the sender's iteration order kept.
 */
@Timeout(60)
class NewTypesRpcTest {
    public record Profile(String name, Map<String, String> attrs, Set<String> tags, Optional<String> nick, LocalDate born) {}

    public interface Types {
        Instant later(Instant t, java.time.Duration by);
        UUID flip(UUID id);
        BigDecimal add(BigDecimal a, BigDecimal b);
        ZonedDateTime in(ZonedDateTime t, String zone);
        Profile renamed(Profile p, String name);
        Map<String, Integer> lengths(List<String> words);
        Set<String> upper(Set<String> words);
        Collection<Long> doubled(Collection<Long> xs);
        Optional<String> find(Map<String, String> m, String key);
        Optional<Profile> maybe(Optional<Profile> p);
    }

    public static final class TypesImpl implements Types {
        @Override public Instant later(Instant t, java.time.Duration by) { return t.plus(by); }
        @Override public UUID flip(UUID id) { return new UUID(id.getLeastSignificantBits(), id.getMostSignificantBits()); }
        @Override public BigDecimal add(BigDecimal a, BigDecimal b) { return a.add(b); }
        @Override public ZonedDateTime in(ZonedDateTime t, String zone) { return t.withZoneSameInstant(ZoneId.of(zone)); }
        @Override public Profile renamed(Profile p, String name) { return new Profile(name, p.attrs(), p.tags(), p.nick(), p.born()); }

        @Override public Map<String, Integer> lengths(List<String> words) {
            if (words == null) return null;
            Map<String, Integer> m = new LinkedHashMap<>();
            for (String w : words) m.put(w, w.length());
            return m;
        }

        @Override public Set<String> upper(Set<String> words) {
            Set<String> s = new LinkedHashSet<>();
            for (String w : words) s.add(w.toUpperCase(java.util.Locale.ROOT));
            return s;
        }

        @Override public Collection<Long> doubled(Collection<Long> xs) { return xs.stream().map(x -> 2 * x).toList(); }

        @Override public Optional<String> find(Map<String, String> m, String key) { return Optional.ofNullable(m.get(key)); }

        @Override public Optional<Profile> maybe(Optional<Profile> p) { return p.map(x -> renamed(x, x.name() + "!")); }
    }

    private static final AtomicInteger N = new AtomicInteger();
    private Node server;
    private Node client;

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private Types connect(String transport) {
        String address = transport.equals("shm") ? "shm:types-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet() : "tcp://127.0.0.1:0";
        server = Node.listen(address);
        server.export("types", Types.class, new TypesImpl());
        client = Node.create();
        return client.lookup(server.addresses().getFirst(), "types", Types.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void theNewTypesCrossAsParametersAndResults(String transport) {
        Types t = connect(transport);
        Instant now = Instant.ofEpochSecond(1_764_000_000L, 123);
        assertEquals(now.plusSeconds(90), t.later(now, java.time.Duration.ofSeconds(90)));
        UUID id = new UUID(1, 2);
        assertEquals(new UUID(2, 1), t.flip(id));
        assertEquals(new BigDecimal("3.50"), t.add(new BigDecimal("1.25"), new BigDecimal("2.25")));
        ZonedDateTime z = ZonedDateTime.of(2026, 11, 25, 17, 0, 0, 0, ZoneId.of("Europe/Paris"));
        assertEquals(z.withZoneSameInstant(ZoneId.of("Asia/Tokyo")), t.in(z, "Asia/Tokyo"));
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("z", "last");
        attrs.put("a", "first");
        Profile p = new Profile("ada", attrs, new LinkedHashSet<>(List.of("y", "b")), Optional.of("a"), LocalDate.of(1815, 12, 10));
        Profile back = t.renamed(p, "lovelace");
        assertEquals(new Profile("lovelace", attrs, p.tags(), p.nick(), p.born()), back);
        assertEquals(List.of("z", "a"), List.copyOf(back.attrs().keySet()), "the sender's order");
        Map<String, Integer> lengths = t.lengths(List.of("ccc", "a", "bb"));
        assertEquals(Map.of("ccc", 3, "a", 1, "bb", 2), lengths);
        assertEquals(List.of("ccc", "a", "bb"), List.copyOf(lengths.keySet()));
        assertEquals(List.of("Y", "B"), List.copyOf(t.upper(new LinkedHashSet<>(List.of("y", "b")))));
        assertEquals(List.of(2L, 4L), List.copyOf(t.doubled(List.of(1L, 2L))));
        assertEquals(Optional.of("first"), t.find(attrs, "a"));
        assertEquals(Optional.empty(), t.find(attrs, "nope"));
        assertEquals(Optional.empty(), t.maybe(Optional.empty()));
        assertEquals("ada!", t.maybe(Optional.of(p)).orElseThrow().name());
        assertNull(t.lengths(null), "a null collection stays null");
    }
}
