package dev.verbatim.wire.file;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The value types, maps, sets and optionals in stored files: read back in this process, and validated by a process
 * that never loaded the writer's classes (it learns the types from the file's descriptions and checks maps' key order
 * and value types' rules through the validator of learned shapes), which also refuses a damaged value.
 */
class NewTypesFileTest {
    public record Account(String owner, Map<String, String> labels, Set<Integer> codes, Optional<String> note, Instant opened,
                          LocalDate born, ZonedDateTime meeting, UUID id, BigDecimal balance) {}

    static Account account() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("tier", "gold");
        labels.put("region", "emea");
        labels.put("channel", "web");
        return new Account("ada", labels, new LinkedHashSet<>(List.of(30, 10, 20)), Optional.of("vip"),
                Instant.ofEpochSecond(1_700_000_000L, 5), LocalDate.of(2024, 2, 29),
                ZonedDateTime.of(2026, 7, 1, 9, 30, 0, 0, ZoneId.of("America/New_York")), new UUID(1, 2), new BigDecimal("1234.5600"));
    }

    @Test
    void theNewTypesAreStoredReadBackAndValidatedByAProcessWithoutTheirClasses(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("account.vrbt");
        Account a = account();
        WireFile.write(f, a);
        try (WireFile file = WireFile.open(f)) {
            assertEquals(a, file.materialize(Account.class));
        }
        String out = ChildJvm.run(dir, 60, "inspect", f.toString());
        assertTrue(out.startsWith("objects "), out);
        assertTrue(out.contains("labels:map(string,string)") && out.contains("codes:set(box(i32))") && out.contains("note:optional(string)")
                && out.contains("opened:instant") && out.contains("meeting:zoneddatetime"), out);

        // 2024-02-29 is [year 2024][day 29][month 2]: make it the 29th of the 13th month
        byte[] bytes = Files.readAllBytes(f);
        int at = indexOf(bytes, new byte[] {(byte) 0xE8, 0x07, 0, 0, 29, 2});
        assertTrue(at > 0);
        bytes[at + 5] = 13;
        Path damaged = dir.resolve("damaged.vrbt");
        Files.write(damaged, bytes);
        String refused = ChildJvm.run(dir, 60, "inspect", damaged.toString());
        assertTrue(refused.startsWith("refused: ") && refused.contains("month not in 1..12"), refused);
    }

    private static int indexOf(byte[] a, byte[] p) {
        for (int i = 0; i + p.length <= a.length; i++) {
            int j = 0;
            while (j < p.length && a[i + j] == p[j]) j++;
            if (j == p.length) return i;
        }
        return -1;
    }
}
