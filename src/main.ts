import { runMain } from "citty";
import { main } from "./cli/index.ts";

await runMain(main);
