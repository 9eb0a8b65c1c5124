/**
 * The CLI's words in Indonesian (`--lang id`).
 *
 * @module
 */
import type { CliMessages } from './messages.js';

/** Everything the CLI says, in Indonesian. */
export const ID: CliMessages = {
  thinking: 'berpikir',
  stopping: 'Menghentikan proses… (tekan Ctrl-C lagi untuk langsung keluar)',
  steps: { one: 'langkah', other: 'langkah' },
  singular: () => false,
  tokens: 'token',
  tokensUnknown: 'token tidak diketahui',
  costUnknown: 'biaya tidak diketahui (tidak ada harga untuk model ini: --price MASUK/KELUAR)',
  trace: 'jejak:',
  noAnswer: {
    max_steps: 'Tidak ada jawaban: batas langkah tercapai (naikkan dengan --max-steps).',
    format_errors:
      'Tidak ada jawaban: model terus menulis giliran yang tidak mengikuti format Pikiran/Tindakan.',
    repeated_action: 'Tidak ada jawaban: model terus mengulang tindakan yang sama dengan hasil yang sama.',
    budget: 'Tidak ada jawaban: proses mencapai batas anggaran ({detail}).',
    aborted: 'Tidak ada jawaban: proses dihentikan.',
    error: 'Tidak ada jawaban: {detail}',
    paused: 'Belum ada jawaban: proses dijeda, menunggu persetujuan.',
  },
  status: {
    answered: 'terjawab',
    max_steps: 'batas langkah',
    format_errors: 'kesalahan format',
    repeated_action: 'tindakan berulang',
    budget: 'anggaran habis',
    aborted: 'dihentikan',
    error: 'galat',
    paused: 'dijeda',
  },
  tokenCounts: '{in} masuk / {out} keluar (token)',
  budgetDetail: 'token, biaya atau waktu',
  budgetTokens:
    'anggaran token: {used} dari {max} terpakai, dan panggilan berikutnya perlu sekitar {next} lagi.',
  budgetCost: 'anggaran biaya: {spent} dari {max} terpakai, dan masukan panggilan berikutnya sekitar {next}.',
  budgetTime: '--timeout: proses berjalan lebih dari {seconds} detik.',
  failedDetail: 'proses gagal.',
  rejected: '(ditolak: {reason})',
  byTheUser: 'oleh pengguna',
  editedInput: '(disetujui dengan masukan yang diubah: {input})',
  modelFailed: '{model} gagal: {error}',
  tryingNext: '({what}; mencoba {model})',
  modelRetry: 'percobaan ulang {retry} dari {max} setelah {error} (menunggu {waited})',
  modelRetryOpen: 'percobaan ulang {retry} setelah {error} (menunggu {waited})',
  unusableTurn: '(giliran model tidak dapat dipakai)',
  droppedObservation: '(Observasi yang ditulis model sendiri dibuang)',
  approval: {
    wants: 'Model ingin menjalankan {action} (efek: {effects}).',
    ask: 'Izinkan? [y]a / [t]idak / [u]bah: ',
    newInput: 'Masukan baru untuk {tool}: ',
    again: 'Jawab y, t atau u.',
    yes: ['y', 'ya'],
    no: ['t', 'tidak'],
    edit: ['u', 'ubah'],
    noTerminal:
      'tidak ada terminal untuk meminta persetujuan {tool} ({effects}); jalankan lagi dengan --allow {tool} atau --yes',
  },
  noTrace: 'jejak proses ini tidak disimpan ({detail}); gunakan --trace BERKAS.',
  cannotWriteTrace: 'tidak dapat menulis jejak ke {file}: {detail}',
  traceWriteFailed: 'jejak tidak dapat ditulis: {detail}. Proses berlanjut tanpanya.',
  inputEnded: 'masukan berakhir (masukan standar tertutup), jadi tidak ada yang bisa menjawab alat human',
  stoppingBecause: '{reason}; menghentikan proses.',
  runFailed: 'proses gagal: {detail}',
  debugHint: '(setel TAOLOOP_DEBUG=1 untuk melihat jejak tumpukan)',
  emptyQuestion: 'pertanyaannya kosong. Contoh: taoloop {command} "Berapa 20 * 12 * 7?"',
  noModel: 'tidak ada model yang dikonfigurasi, dan model lokal bawaan tidak tersedia: {detail}',
  noLlamaCpp: 'model ini memerlukan node-llama-cpp, yang belum terpasang: jalankan `{command}`',
  modelSetup: [
    'Atur model dengan --model <spec> atau variabel lingkungan TAOLOOP_MODEL:',
    '  --model openai-compatible:http://127.0.0.1:8080/v1#my-model   server apa pun yang kompatibel dengan OpenAI',
    '                                      (llama.cpp, vLLM, LM Studio; kunci di TAOLOOP_API_KEY bila perlu)',
    '  --model openai:gpt-4o-mini          dengan OPENAI_API_KEY disetel (OPENAI_BASE_URL opsional)',
    '  --model anthropic:claude-3-5-haiku-latest   dengan ANTHROPIC_API_KEY disetel',
    '  --model google:gemini-2.0-flash     dengan GOOGLE_GENERATIVE_AI_API_KEY disetel',
    '  --model ollama:llama3.1             Ollama lokal (OLLAMA_BASE_URL, bawaan http://127.0.0.1:11434/v1)',
    '  --model local:./model.gguf          berkas GGUF yang dijalankan di dalam proses (llama.cpp); local: saja',
    '                                      mengunduh model kecil bawaan (Qwen2.5-1.5B-Instruct) sekali',
    'Tanpa --model: TAOLOOP_MODEL, jika tidak penyedia pertama yang kunci API-nya disetel (OpenAI,',
    'Anthropic, Google), jika tidak Ollama lokal yang menjawab di 127.0.0.1:11434 (model pertamanya), jika',
    'tidak model lokal bawaan. `taoloop models` menunjukkan apa yang dikonfigurasi dan mana yang akan dipilih.',
  ].join('\n'),
  traceCrashed: 'Proses mogok atau langsung dihentikan: {error}',
  traceStops: '(jejak berhenti di sini: proses dimatikan, atau masih berjalan)',
  humanAsks: 'Agen meminta Anda untuk:',
  humanObserved: 'Apa yang Anda amati?',
  humanToolDescription:
    'Meminta orang di terminal melakukan suatu tindakan atau memeriksa sesuatu, lalu mengembalikan apa yang mereka amati. Masukan: apa yang harus dilakukan atau diperiksa.',
  humanModelIntro:
    'Anda adalah modelnya. Ini prompt yang akan dilihat model; tulis setiap giliran seperti seharusnya (program menjalankan alatnya).',
  humanModelTurn:
    'Giliran Anda: ketik baris Pikiran dan Tindakan (atau Pikiran dan Jawaban); baris kosong mengakhiri giliran.',
  instructions:
    'Tulis dalam bahasa Indonesia. Di setiap giliran, tulis satu Pikiran lalu satu Tindakan dengan format alat[masukan], atau Jawaban bila sudah tahu. Tulis hanya satu Tindakan per giliran lalu berhenti: program menjalankan alat dan membalas dengan Observasi yang sebenarnya. Jangan pernah menulis Observasi sendiri.',
  askInstructions:
    'Orang di terminal melakukan setiap tindakan yang Anda minta dengan alat human dan memberi tahu apa yang mereka amati. Minta satu hal sederhana setiap kali, dan jawab segera setelah pengamatan cukup.',
  chat: {
    intro:
      'Percakapan {id}. Ajukan pertanyaan; /new memulai percakapan baru, /exit atau Ctrl-D keluar, Ctrl-C menghentikan jawaban.',
    newConversation: 'Percakapan baru {id}.',
    unknownCommand: 'Perintah tidak dikenal {command}: /new memulai percakapan baru, /exit keluar.',
    howToLeave: '(/exit atau Ctrl-D untuk keluar)',
    followUp: 'Lanjutkan nanti: taoloop run --continue {id} "..."',
  },
  usage: {
    error: 'kesalahan',
    unknownOption: "opsi tidak dikenal '{option}'",
    unknownCommand: "perintah tidak dikenal '{command}'",
    missingArgument: "argumen wajib '{argument}' tidak diberikan",
    optionMissingArgument: "opsi '{option}' tidak diberi nilai",
    invalidOptionValue: "nilai '{value}' untuk opsi '{option}' tidak sah. {detail}",
    invalidEnvValue: "nilai '{value}' untuk opsi '{option}' dari '{env}' tidak sah. {detail}",
    invalidArgumentValue: "nilai '{value}' untuk argumen '{argument}' tidak sah. {detail}",
    excessArguments: "terlalu banyak argumen untuk '{command}': diharapkan {expected}, diterima {got}.",
    didYouMean: '(Maksud Anda {name}?)',
    didYouMeanOneOf: '(Maksud Anda salah satu dari {names}?)',
    choices: 'Nilai yang diterima: {choices}.',
    wholeNumber: 'diharapkan bilangan bulat ≥ 1, diterima "{value}".',
    port: 'diharapkan port dari 0 sampai 65535, diterima "{value}".',
    usd: 'diharapkan jumlah dalam dolar (USD) di atas 0 seperti 0.50, diterima "{value}".',
    price:
      'diharapkan harga masukan dan keluaran dalam dolar (USD) per sejuta token, sebagai MASUK/KELUAR seperti 0.15/0.60, diterima "{value}".',
    duration: 'diharapkan durasi seperti 90s, 2m, 500ms atau jumlah detik, diterima "{value}".',
    helpHint: '(jalankan dengan --help untuk cara pakai)',
  },
  errors: {
    inConfig: 'kolom "{field}" di berkas konfigurasi {file}',
    unknownTool: 'alat {names} di {where} tidak dikenal. Yang tersedia: {available}.',
    noTool: '{where} tidak menyebut satu alat pun{given}. Yang tersedia: {available}.',
    docsNeedsSearch: '{where} hanya dipakai oleh alat search; tambahkan search ke --tools.',
    rootNeedsTool:
      '{where} hanya dipakai oleh alat read_file dan run_tests; tambahkan salah satunya ke --tools.',
    wikiCorpusNeedsWikipedia: '{where} hanya dipakai oleh alat wikipedia; tambahkan wikipedia ke --tools.',
    searchNeedsDocs: 'alat search memerlukan folder dokumen: tambahkan --docs FOLDER.',
    readFileNeedsRoot: 'read_file memerlukan folder yang boleh dibacanya: tambahkan --root FOLDER.',
    runTestsNeedsRoot: 'run_tests memerlukan folder proyek: tambahkan --root FOLDER.',
    allowNotATool: '--allow {names}: bukan alat dalam eksekusi ini. Alatnya: {tools}.',
    maxCostNeedsPrice:
      '--max-cost memerlukan harga {model}, dan taoloop tidak mengetahuinya: berikan --price MASUK/KELUAR dalam dolar (USD) per sejuta token masukan/keluaran (misalnya --price 0.15/0.60), atau tambahkan ke "prices" di berkas konfigurasi.',
    configMissing: 'berkas konfigurasi {file} tidak ada.',
    badConfig: 'berkas konfigurasi {file} bermasalah:\n  {problems}',
    traceNotFound:
      'tidak ada jejak "{ref}": bukan berkas, dan tidak ada eksekusi dengan id itu di {folder} (lihat taoloop runs).',
  },
};
