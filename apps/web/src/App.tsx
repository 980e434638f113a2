import './pages/centerPage.css';
import { useEffect } from 'react';
import { HomePage } from './pages/HomePage.tsx';
import { RoomPage } from './pages/RoomPage.tsx';
import { parseRoute, usePathname } from './routing.ts';
import { TeacherPage } from './teacher/TeacherPage.tsx';
import { SharedLessonPage } from './share/SharedLessonPage.tsx';
import { useT } from './i18n/useT.ts';

export function App() {
  const route = parseRoute(usePathname());
  const t = useT();
  useEffect(() => {
    if (route.page === 'home') document.title = t('app.title');
    if (route.page === 'not_found') document.title = t('app.pageTitle', { page: t('notFound.title') });
  }, [route.page, t]);
  switch (route.page) {
    case 'home':
      return <HomePage />;
    case 'teacher':
      return <TeacherPage />;
    case 'room':
      // Keyed by code: moving to another room starts from a clean page, not a reused one.
      return <RoomPage key={route.code} code={route.code} />;
    case 'shared':
      return <SharedLessonPage key={route.token} token={route.token} />;
    case 'not_found':
      return (
        <main className="center-page">
          <div className="card">
            <h1>{t('notFound.title')}</h1>
            <p>{t('notFound.text')}</p>
            <a className="button button-primary" href="/">
              {t('notFound.home')}
            </a>
          </div>
        </main>
      );
  }
}
