import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

public class Main {
    <<insert solution here>>

    /** The lexicographically first k-mers with the highest count, as "count kmer1,kmer2,...". */
    static String mostFrequent(Map<String, Integer> counts) {
        int best = 0;
        for (int c : counts.values()) {
            best = Math.max(best, c);
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Integer> e : new TreeMap<>(counts).entrySet()) {
            if (e.getValue() == best) {
                sb.append(sb.length() == 0 ? "" : ",").append(e.getKey());
            }
        }
        return best + " " + sb;
    }

    public static void main(String[] args) {
        Random rng = new Random(<|int|>);
        int k = <|int;range=2,5|>;
        for (int n = 0; n < 3; n++) {
            StringBuilder sb = new StringBuilder();
            int length = 15 + rng.nextInt(40);
            for (int i = 0; i < length; i++) {
                sb.append("ACGT".charAt(rng.nextInt(4)));
            }
            String seq = sb.toString();
            Map<String, Integer> counts = kmerFrequency(seq, k);
            int total = 0;
            for (int c : counts.values()) {
                total += c;
            }
            System.out.println(seq + " k=" + k + " total=" + total + " distinct=" + counts.size());
            System.out.println(mostFrequent(counts));
            System.out.println(new TreeMap<>(counts));
        }
        System.out.println(kmerFrequency("ACG", 4).size());
    }
}
