import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

public class Main {
    static final String[] STOP_CODONS = {"TAA", "TAG", "TGA"};

    static boolean isStop(String codon) {
        for (String stop : STOP_CODONS) {
            if (stop.equals(codon)) {
                return true;
            }
        }
        return false;
    }

    <<insert solution here>>

    public static void main(String[] args) {
        boolean skipStops = <|bool;type=lower|>;
        Random rng = new Random(<|int;range=0,1000|>);
        String[] genes = new String[4];
        genes[0] = <|string;length=30;custom=ACGT|>;
        for (int i = 1; i < genes.length; i++) {
            StringBuilder sb = new StringBuilder();
            int codons = 4 + rng.nextInt(20);
            for (int j = 0; j < 3 * codons; j++) {
                sb.append("ACGT".charAt(rng.nextInt(4)));
            }
            genes[i] = sb.toString();
        }
        for (String gene : genes) {
            Map<String, Integer> counts = new TreeMap<>(countCodons(gene));
            int total = 0;
            StringBuilder line = new StringBuilder();
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                total += e.getValue();
                if (skipStops && isStop(e.getKey())) {
                    continue;
                }
                line.append(e.getKey()).append('=').append(e.getValue()).append(' ');
            }
            System.out.println(total + " " + line.toString().trim());
        }
        System.out.println(new TreeMap<>(countCodons("ATGAAATT")));
    }
}
