/**
 * The CLI's words in each `--lang`: messages to the person, the human tool's and human model's prompts,
 * and a translated summary of the format rules for the model. The system prompt itself is rendered in
 * English prose by `src/react/prompt.ts` (with translated labels); `instructions` restates its rules in
 * the run's language so a model prompted in Portuguese, French or Indonesian stays in that language.
 *
 * @module
 */
import type { StopReason } from '../agent/types.js';
import type { LabelLanguage } from '../react/labels.js';

/** Everything the CLI says, in one language. */
export interface CliMessages {
  /** Spinner text while the model works. */
  thinking: string;
  /** After the first Ctrl-C. */
  stopping: string;
  steps: string;
  tokens: string;
  tokensUnknown: string;
  costUnknown: string;
  /** Before the trace file's path. */
  trace: string;
  /** Why a run ended without an answer; `{detail}` is replaced by the result's error. */
  noAnswer: Record<Exclude<StopReason, 'answered'>, string>;
  /** The human tool: shown before the requested action. */
  humanAsks: string;
  /** The human tool: the question the person answers. */
  humanObserved: string;
  /** The human tool's description, as the model reads it. */
  humanToolDescription: string;
  /** The human model: shown once, above the prompt the model would see. */
  humanModelIntro: string;
  /** The human model: shown before each turn the person types. */
  humanModelTurn: string;
  /** The format rules in this language, appended to the system prompt; absent for English. */
  instructions?: string;
  /** For `taoloop ask`: how to use the person, appended to the system prompt. */
  askInstructions: string;
  /** `taoloop chat`; `{id}` is the conversation id, `{command}` what was typed. */
  chat: ChatMessages;
}

/** What `taoloop chat` says. */
export interface ChatMessages {
  /** When a conversation starts. */
  intro: string;
  /** After `/new`. */
  newConversation: string;
  /** After a line starting with `/` that is no command. */
  unknownCommand: string;
  /** After Ctrl-C at the prompt (no run to stop). */
  howToLeave: string;
  /** When the person leaves a conversation that has questions in it. */
  followUp: string;
}

const EN: CliMessages = {
  thinking: 'thinking',
  stopping: 'Stopping the run… (press Ctrl-C again to quit at once)',
  steps: 'steps',
  tokens: 'tokens',
  tokensUnknown: 'tokens unknown',
  costUnknown: 'cost unknown',
  trace: 'trace:',
  noAnswer: {
    max_steps: 'No answer: the step limit was reached (raise it with --max-steps).',
    format_errors: 'No answer: the model kept writing turns that do not follow the Thought/Action format.',
    repeated_action: 'No answer: the model kept repeating the same action with the same result.',
    budget: 'No answer: the run hit its budget ({detail}).',
    aborted: 'No answer: the run was aborted.',
    error: 'No answer: {detail}',
    paused: 'No answer yet: the run is paused, waiting for an approval.',
  },
  humanAsks: 'The agent asks you to:',
  humanObserved: 'What did you observe?',
  humanToolDescription:
    'Asks the person at the terminal to perform an action or check something, and returns what they observed. Input: what to do or check.',
  humanModelIntro:
    'You are the model. This is the prompt it would see; write each turn as it should (the program runs the tools).',
  humanModelTurn:
    'Your turn: type Thought and Action lines (or Thought and Answer); an empty line ends the turn.',
  askInstructions:
    'The person at the terminal performs each action you ask for with the human tool and tells you what they observed. Ask for one simple thing to do or check at a time, and answer as soon as the observations support it.',
  chat: {
    intro:
      'Conversation {id}. Ask a question; /new starts a new conversation, /exit or Ctrl-D leaves, Ctrl-C stops an answer.',
    newConversation: 'New conversation {id}.',
    unknownCommand: 'Unknown command {command}: /new starts a new conversation, /exit leaves.',
    howToLeave: '(/exit or Ctrl-D leaves)',
    followUp: 'Follow up later: taoloop run --continue {id} "..."',
  },
};

const PT: CliMessages = {
  thinking: 'pensando',
  stopping: 'Parando a execução… (Ctrl-C de novo para sair já)',
  steps: 'passos',
  tokens: 'tokens',
  tokensUnknown: 'tokens desconhecidos',
  costUnknown: 'custo desconhecido',
  trace: 'registro:',
  noAnswer: {
    max_steps: 'Sem resposta: o limite de passos foi atingido (aumente-o com --max-steps).',
    format_errors: 'Sem resposta: o modelo continuou escrevendo turnos fora do formato Pensamento/Ação.',
    repeated_action: 'Sem resposta: o modelo repetiu a mesma ação com o mesmo resultado.',
    budget: 'Sem resposta: a execução atingiu o orçamento ({detail}).',
    aborted: 'Sem resposta: a execução foi interrompida.',
    error: 'Sem resposta: {detail}',
    paused: 'Ainda sem resposta: a execução está em pausa, à espera de uma aprovação.',
  },
  humanAsks: 'O agente pede que você:',
  humanObserved: 'O que você observou?',
  humanToolDescription:
    'Pede à pessoa no terminal que faça uma ação ou verifique algo e devolve o que ela observou. Entrada: o que fazer ou verificar.',
  humanModelIntro:
    'Você é o modelo. Este é o prompt que ele veria; escreva cada turno como ele deveria (o programa executa as ferramentas).',
  humanModelTurn:
    'Sua vez: digite as linhas Pensamento e Ação (ou Pensamento e Resposta); uma linha vazia termina o turno.',
  instructions:
    'Escreva em português. Em cada turno, escreva um Pensamento e depois uma Ação no formato ferramenta[entrada], ou a Resposta quando souber. Escreva uma única Ação por turno e pare: o programa executa a ferramenta e responde com a Observação real. Nunca escreva a Observação você mesmo.',
  askInstructions:
    'A pessoa no terminal faz cada ação que você pedir com a ferramenta human e diz o que observou. Peça uma coisa simples de cada vez e responda assim que as observações permitirem.',
  chat: {
    intro:
      'Conversa {id}. Faça uma pergunta; /new começa uma nova conversa, /exit ou Ctrl-D sai, Ctrl-C interrompe uma resposta.',
    newConversation: 'Nova conversa {id}.',
    unknownCommand: 'Comando desconhecido {command}: /new começa uma nova conversa, /exit sai.',
    howToLeave: '(/exit ou Ctrl-D sai)',
    followUp: 'Para continuar depois: taoloop run --continue {id} "..."',
  },
};

const FR: CliMessages = {
  thinking: 'réflexion',
  stopping: 'Arrêt de l’exécution… (Ctrl-C à nouveau pour quitter tout de suite)',
  steps: 'étapes',
  tokens: 'jetons',
  tokensUnknown: 'jetons inconnus',
  costUnknown: 'coût inconnu',
  trace: 'trace :',
  noAnswer: {
    max_steps: 'Pas de réponse : la limite d’étapes est atteinte (augmentez-la avec --max-steps).',
    format_errors:
      'Pas de réponse : le modèle écrit des tours qui ne suivent pas le format Réflexion/Action.',
    repeated_action: 'Pas de réponse : le modèle répète la même action avec le même résultat.',
    budget: 'Pas de réponse : l’exécution a atteint son budget ({detail}).',
    aborted: 'Pas de réponse : l’exécution a été interrompue.',
    error: 'Pas de réponse : {detail}',
    paused: 'Pas encore de réponse : l’exécution est en pause, en attente d’une approbation.',
  },
  humanAsks: 'L’agent vous demande de :',
  humanObserved: 'Qu’avez-vous observé ?',
  humanToolDescription:
    'Demande à la personne devant le terminal de faire une action ou de vérifier quelque chose, et renvoie ce qu’elle a observé. Entrée : quoi faire ou vérifier.',
  humanModelIntro:
    'Vous êtes le modèle. Voici le prompt qu’il verrait ; écrivez chaque tour comme il le devrait (le programme exécute les outils).',
  humanModelTurn:
    'À vous : tapez les lignes Réflexion et Action (ou Réflexion et Réponse) ; une ligne vide termine le tour.',
  instructions:
    'Écris en français. À chaque tour, écris une Réflexion puis une Action au format outil[entrée], ou la Réponse quand tu la connais. Écris une seule Action par tour puis arrête-toi : le programme exécute l’outil et répond avec la vraie Observation. N’écris jamais l’Observation toi-même.',
  askInstructions:
    'La personne devant le terminal fait chaque action que tu demandes avec l’outil human et te dit ce qu’elle a observé. Demande une seule chose simple à la fois et réponds dès que les observations le permettent.',
  chat: {
    intro:
      'Conversation {id}. Posez une question ; /new commence une nouvelle conversation, /exit ou Ctrl-D quitte, Ctrl-C arrête une réponse.',
    newConversation: 'Nouvelle conversation {id}.',
    unknownCommand: 'Commande inconnue {command} : /new commence une nouvelle conversation, /exit quitte.',
    howToLeave: '(/exit ou Ctrl-D pour quitter)',
    followUp: 'Pour continuer plus tard : taoloop run --continue {id} "..."',
  },
};

const ID: CliMessages = {
  thinking: 'berpikir',
  stopping: 'Menghentikan proses… (tekan Ctrl-C lagi untuk langsung keluar)',
  steps: 'langkah',
  tokens: 'token',
  tokensUnknown: 'token tidak diketahui',
  costUnknown: 'biaya tidak diketahui',
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
};

/** The CLI's messages, by `--lang` code. */
export const CLI_MESSAGES: Readonly<Record<LabelLanguage, CliMessages>> = { en: EN, pt: PT, fr: FR, id: ID };

/** Why a run ended without an answer, in `messages`' language. */
export function noAnswerMessage(
  messages: CliMessages,
  status: Exclude<StopReason, 'answered'>,
  detail: string | undefined,
): string {
  const fallback = status === 'budget' ? 'tokens, cost or time' : 'the run failed.';
  return messages.noAnswer[status].replace('{detail}', detail ?? fallback);
}
