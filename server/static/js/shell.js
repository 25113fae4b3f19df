// The page's shell: on narrow screens the top bar's people, Share and Chat fold into a menu
// (the layout itself is CSS: docs/CLIENT.md, "Phones and tablets").

const $ = (id) => document.getElementById(id);

export function wireShell() {
  const toggle = $('menu-toggle');
  const menu = $('topbar-menu');
  const isOpen = () => document.body.classList.contains('menu-open');
  const set = (open) => {
    document.body.classList.toggle('menu-open', open);
    toggle.setAttribute('aria-expanded', String(open));
  };
  toggle.addEventListener('click', () => set(!isOpen()));
  // Choosing an item, or pressing anywhere else, closes it.
  menu.addEventListener('click', (e) => {
    if (e.target.closest('button')) set(false);
  });
  document.addEventListener('pointerdown', (e) => {
    if (isOpen() && !e.target.closest('#topbar-menu, #menu-toggle')) set(false);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && isOpen()) {
      set(false);
      toggle.focus();
    }
  });
}
