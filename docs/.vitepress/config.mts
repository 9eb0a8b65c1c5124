import { existsSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitepress';

/** The API reference's sidebar, written by TypeDoc (`npm run api`) next to the pages it generates. */
const apiSidebarFile = new URL('../api/typedoc-sidebar.json', import.meta.url);
const apiSidebar = existsSync(apiSidebarFile) ? JSON.parse(readFileSync(apiSidebarFile, 'utf8')) : [];

const guide = [
  {
    text: 'Start',
    items: [
      { text: 'Getting started', link: '/guide/getting-started' },
      { text: 'The ReAct loop and its stop reasons', link: '/guide/react-loop' },
    ],
  },
  {
    text: 'Build an agent',
    items: [
      { text: 'Tools, effects and approvals', link: '/guide/tools' },
      { text: 'Models', link: '/guide/models' },
      { text: 'Conversations and typed answers', link: '/guide/conversations' },
      { text: 'A useChat app', link: '/guide/use-chat' },
      { text: 'Pause and resume', link: '/guide/pause-resume' },
      { text: 'Agents as tools and step hooks', link: '/guide/agents-and-hooks' },
    ],
  },
  {
    text: 'Measure and test',
    items: [
      { text: 'Testing your agent', link: '/guide/testing' },
      { text: 'Evaluation as in the paper', link: '/guide/evaluation' },
    ],
  },
  {
    text: 'Run it anywhere',
    items: [
      { text: 'Durable runs on Restate', link: '/guide/restate' },
      { text: 'Browsers, edge runtimes, Deno and Bun', link: '/guide/runtimes' },
      { text: 'The CLI', link: '/guide/cli' },
      { text: 'The playground', link: '/guide/playground' },
    ],
  },
  {
    text: 'Trust',
    items: [
      { text: 'Security', link: '/guide/security' },
      { text: 'What was verified, and how', link: '/guide/verified' },
    ],
  },
];

export default defineConfig({
  title: 'taoloop',
  description:
    'ReAct agents for TypeScript: a robust Thought/Action/Observation loop, safe tools, every model.',
  cleanUrls: true,
  // Only the generated API pages and their sidebar are ignored by git; a dead link anywhere fails the build.
  srcExclude: ['README.md'],
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/guide/': guide,
      '/api/': [{ text: 'API reference', link: '/api/' }, ...apiSidebar],
    },
    // MiniSearch over the built pages, in the browser: works offline, no service.
    search: { provider: 'local' },
    outline: 'deep',
  },
});
